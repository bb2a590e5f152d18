package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.testsupport.CountingManualScheduler;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A gate that nobody waits for, but whose time still matters (a bucket refilling, grants it
 * remembers, an adaptive budget's slices), wakes every 100 ms instead of every tick (here 10 ms),
 * and an actor that comes then gets its permit when it would have: the gate's coarse timer keeps its
 * clock. The wake-ups are counted as the timer firings ManualTime's scheduler runs, in a system
 * where only the gate has timers (a gate that ticked on woke 3,000 times in the 30 s after one grant
 * of a budget of one a minute).
 */
final class AGateThatNobodyWaitsForWakesEvery100MsTest {

  private static final ActorTestKit kit =
      ActorTestKit.create(
          ConfigFactory.parseString("pekko.scheduler.tick-duration = 10ms")
              .withFallback(CountingManualScheduler.config()));
  private static final ManualTime time = ManualTime.get(kit.system());

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  private record Grant(int n) implements Signal {}

  private static ActorRef<Object> requester(TestProbe<Integer> probe) {
    return kit.spawn(
        Behaviors.receive(Object.class)
            .onSignal(
                Grant.class,
                g -> {
                  probe.ref().tell(g.n());
                  return Behaviors.same();
                })
            .build());
  }

  private static void settle(ActorRef<GateProtocol.Command> gate) {
    TestProbe<Integer> reply = kit.createTestProbe();
    gate.tell(new GateProtocol.Waiting(reply.ref()));
    reply.receiveMessage();
  }

  /** Timer firings while ManualTime advances {@code total} in {@code steps} steps. */
  private static long wakeUps(Duration total, int steps) {
    long before = CountingManualScheduler.runs();
    for (int i = 0; i < steps; i++) {
      time.timePasses(total.dividedBy(steps));
    }
    return CountingManualScheduler.runs() - before;
  }

  @Test
  void aVerySlowFixedBudget_wakesTenTimesASecondAfterAGrant_andStillGrantsOnTime() {
    TestProbe<Integer> granted = kit.createTestProbe();
    ActorRef<Object> r = requester(granted);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.of("slow", 1, Duration.ofMinutes(1))));
    gate.tell(new Acquire(r, new Grant(1)));
    assertEquals(1, granted.receiveMessage()); // the burst of one
    settle(gate);
    long asleep = wakeUps(Duration.ofSeconds(30), 3);
    assertTrue(asleep >= 290 && asleep <= 310, "wake-ups in 30 s with nobody waiting: " + asleep);
    gate.tell(new Acquire(r, new Grant(2))); // no permit before 60 s: it waits, the gate ticks
    settle(gate);
    time.timePasses(Duration.ofMillis(29_900));
    granted.expectNoMessage(Duration.ofMillis(200));
    time.timePasses(Duration.ofMillis(100));
    assertEquals(2, granted.receiveMessage()); // at 60 s, not 30 s later
    kit.stop(gate);
  }

  @Test
  void anAdaptiveBudgetNobodyWaitsFor_wakesOncePerSlice_untilItIsIdle() {
    TestProbe<Integer> granted = kit.createTestProbe();
    ActorRef<Object> r = requester(granted);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive("adaptive-asleep")));
    gate.tell(new Acquire(r, new Grant(1)));
    assertEquals(1, granted.receiveMessage()); // steady: at once
    settle(gate);
    // the grant is in probation and remembered for a few slices of 100 ms: a wake-up per slice
    long wakes = wakeUps(Duration.ofSeconds(1), 4);
    assertTrue(wakes >= 1 && wakes <= 10, "wake-ups in the second after a grant: " + wakes);
    assertEquals(0, wakeUps(Duration.ofSeconds(2), 2), "an idle gate has no timer");
    kit.stop(gate);
  }
}
