package dev.supervision.backoff.internal;

import static dev.supervision.backoff.testsupport.Gates.queued;
import static dev.supervision.backoff.testsupport.Gates.requester;
import static dev.supervision.backoff.testsupport.Gates.waiting;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.testsupport.Gates.Grant;
import dev.supervision.backoff.testsupport.StartingRequester;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A gate spreads its grants in time, at the scheduler's resolution (here 1 ms): no clump of a
 * slice's permits, in any millisecond at most the rate times the tick plus the burst, for fixed and
 * adaptive budgets alike; its rate holds against the scheduler's clock, so ManualTime steps of
 * 100 ms, 1 s and 10 s give the same grants.
 */
final class BudgetGatePacesItsGrantsTest {

  private static final ActorTestKit kit =
      ActorTestKit.create(
          ConfigFactory.parseString("pekko.scheduler.tick-duration = 1ms")
              .withFallback(ManualTime.config()));
  private static final ManualTime time = ManualTime.get(kit.system());
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  @Test
  void theTickIsTheSchedulersResolution_between1And100Ms() {
    assertEquals(1_000_000L, BudgetGate.tickNanos(kit.system().settings().config()));
    assertEquals(10_000_000L, BudgetGate.tickNanos(ConfigFactory.empty()));
    assertEquals(
        10_000_000L,
        BudgetGate.tickNanos(ConfigFactory.parseString("pekko.scheduler.tick-duration = 10ms")));
    assertEquals(
        1_000_000L,
        BudgetGate.tickNanos(ConfigFactory.parseString("pekko.scheduler.tick-duration = 100us")));
    assertEquals(
        100_000_000L,
        BudgetGate.tickNanos(ConfigFactory.parseString("pekko.scheduler.tick-duration = 1s")));
  }

  /** Grants in each of {@code steps} ManualTime steps of 1 ms, after those at the start. */
  private static List<Integer> grantsPerMillisecond(
      ActorRef<GateProtocol.Command> gate, int waiters, int steps) {
    List<Integer> perStep = new ArrayList<>();
    int before = waiters - waiting(kit, gate);
    perStep.add(before);
    for (int i = 0; i < steps; i++) {
      time.timePasses(Duration.ofMillis(1));
      int granted = waiters - waiting(kit, gate);
      perStep.add(granted - before);
      before = granted;
    }
    return perStep;
  }

  @Test
  void aFixedBudgetOf1000PerSecond_grantsOnePermitPerMillisecond_notAHundredPerSlice() {
    RestartBudget budget =
        RestartBudget.of("paced-fixed-" + names.incrementAndGet(), 1000, Duration.ofSeconds(1))
            .withBurst(1);
    List<Integer> perMs = grantsPerMillisecond(queued(kit, budget, 500), 500, 15);
    assertEquals(List.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), perMs);
  }

  @Test
  void aFixedBudgetsBurstGoesAtOnce_thenThePermitsArePaced() {
    // 2000 per second, burst 5: five at once, then two per millisecond
    RestartBudget budget =
        RestartBudget.of("paced-burst-" + names.incrementAndGet(), 2000, Duration.ofSeconds(1))
            .withBurst(5);
    List<Integer> perMs = grantsPerMillisecond(queued(kit, budget, 500), 500, 10);
    assertEquals(List.of(5, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2), perMs);
  }

  @Test
  void anAdaptiveBudgetUnderACeiling_pacesItsGrants_atMostRateTimesTickPlusOne() {
    // steady under a ceiling of 1000 per second: 100 permits per slice, paced one per millisecond
    RestartBudget budget =
        RestartBudget.adaptive("paced-adaptive-" + names.incrementAndGet())
            .withMaxRate(1000, Duration.ofSeconds(1));
    List<Integer> perMs = grantsPerMillisecond(queued(kit, budget, 500), 500, 15);
    for (int granted : perMs) {
      assertTrue(granted <= 2, "grants per millisecond: " + perMs);
    }
    int total = perMs.stream().mapToInt(Integer::intValue).sum();
    assertTrue(total >= 15, "grants in 15 ms: " + perMs);
  }

  /**
   * Waiting counts at 2, 3, ..., 10 s of a scenario, stepping ManualTime by {@code step} (the
   * 10 s stepper sees only the last).
   */
  private static List<Integer> waitingEverySecond(
      Supplier<ActorRef<GateProtocol.Command>> start, Duration step) {
    ActorRef<GateProtocol.Command> gate = start.get();
    List<Integer> seen = new ArrayList<>();
    long stepMs = step.toMillis();
    for (long t = stepMs; t <= 10_000; t += stepMs) {
      time.timePasses(step);
      if (t % 1000 == 0 && t >= 2000) {
        seen.add(waiting(kit, gate));
      }
    }
    return seen;
  }

  /** Steps of 100 ms for the first 2 s, then of 1 s: the waiting counts at 2, ..., 10 s. */
  private static List<Integer> fineThenCoarse(Supplier<ActorRef<GateProtocol.Command>> start) {
    ActorRef<GateProtocol.Command> gate = start.get();
    for (int i = 0; i < 20; i++) {
      time.timePasses(Duration.ofMillis(100));
    }
    List<Integer> seen = new ArrayList<>();
    seen.add(waiting(kit, gate));
    for (int s = 3; s <= 10; s++) {
      time.timePasses(Duration.ofSeconds(1));
      seen.add(waiting(kit, gate));
    }
    return seen;
  }

  @Test
  void aFixedBudgetsRateHoldsAgainstTheClock_andStepsOf100Ms1sAnd10sGiveTheSameGrants() {
    // 37 per second, burst 3: 3 at once, then exactly 37 per second of the scheduler's clock
    Supplier<ActorRef<GateProtocol.Command>> start =
        () ->
            queued(
                kit,
                RestartBudget.of(
                        "clock-fixed-" + names.incrementAndGet(), 37, Duration.ofSeconds(1))
                    .withBurst(3),
                1000);
    List<Integer> fine = fineThenCoarse(start);
    List<Integer> seconds = waitingEverySecond(start, Duration.ofSeconds(1));
    List<Integer> tens = waitingEverySecond(start, Duration.ofSeconds(10));
    List<Integer> expected = new ArrayList<>();
    for (int s = 2; s <= 10; s++) {
      expected.add(1000 - 3 - 37 * s);
    }
    assertEquals(expected, fine);
    assertEquals(expected, seconds);
    assertEquals(List.of(expected.get(expected.size() - 1)), tens);
  }

  @Test
  void anAdaptiveBudget_holdsProbesAndRamps_toItsCeilingWhateverTheStepsOfManualTime() {
    Supplier<ActorRef<GateProtocol.Command>> start =
        () -> {
          ActorRef<GateProtocol.Command> gate =
              kit.spawn(
                  BudgetGate.create(
                      RestartBudget.adaptive("clock-adaptive-" + names.incrementAndGet())
                          .withHoldAfter(1)
                          .withMaxRate(300, Duration.ofSeconds(1)),
                      1));
          gate.tell(new GateProtocol.Failed(requester(kit, g -> {}))); // holding from now on
          ActorRef<Object> r = kit.spawn(StartingRequester.create(gate, Grant.class, g -> {}));
          for (int i = 0; i < 3000; i++) {
            gate.tell(new Acquire(r, new Grant("w" + i)));
          }
          waiting(kit, gate); // the gate has them all, and its timer runs, before time passes
          return gate;
        };
    // in steps of 100 ms the start of each restart reaches the gate within its tick: a probe,
    // slow start from 100 per second, then the ceiling of 300 per second
    List<Integer> fine = fineThenCoarse(start);
    int grantedFrom2To10s = fine.get(0) - fine.get(fine.size() - 1);
    assertEquals(8 * 300, grantedFrom2To10s, 3, "grants between 2 s and 10 s: " + fine);
    // in larger steps the gate's clock runs ahead of the restarted actors: the ramp starts when
    // the probe's start reaches the gate, later in the gate's time, but never above the ceiling
    for (Duration step : List.of(Duration.ofSeconds(1), Duration.ofSeconds(10))) {
      List<Integer> coarse = waitingEverySecond(start, step);
      int grantedIn10s = 3000 - coarse.get(coarse.size() - 1);
      assertTrue(grantedIn10s <= 1 + 10 * 300 + 3, step + ": " + coarse);
      assertTrue(grantedIn10s > 1, step + ": it ramped: " + coarse);
    }
  }
}
