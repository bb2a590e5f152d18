package dev.supervision.backoff.internal;

import static dev.supervision.backoff.testsupport.Gates.queued;
import static dev.supervision.backoff.testsupport.Gates.waiting;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * After a stall, the ticks a fixed-rate timer catches up come back to back; between two firings of
 * the release timer (at least a tick apart in real time) the gate lets at most {@code
 * maxIn(2 ticks)} permits go, instead of a clump of all the permits of the stall; an adaptive
 * budget drops the rest, a fixed one saves its burst, as after an idle period. The stall is made by sending the gate its ticks directly while {@code ManualTime} stands
 * still, so that no release fires in between.
 */
final class BudgetGateDropsThePermitsOfAStallTest {

  private static final ActorTestKit kit =
      ActorTestKit.create(
          ConfigFactory.parseString("pekko.scheduler.tick-duration = 1ms")
              .withFallback(ManualTime.config()));
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  private static void ticks(ActorRef<GateProtocol.Command> gate, int n) {
    for (int i = 0; i < n; i++) {
      gate.tell(BudgetGate.Tick.INSTANCE);
    }
  }

  @Test
  void aFixedBudgetsStall_releasesAtMostBurstAndThreeTicksOfRate_thenSavesOnlyItsBurst() {
    // 1,000 per second, burst 5: five at once; a stall of 100 ticks then releases at most
    // maxIn(2 ms) = 1 + floor(3 + 4) = 8 in all, not 5 + 100
    ActorRef<GateProtocol.Command> gate =
        queued(
            kit,
            RestartBudget.of("stall-fixed-" + names.incrementAndGet(), 1000, Duration.ofSeconds(1))
                .withBurst(5),
            500);
    assertEquals(495, waiting(kit, gate));
    ticks(gate, 100);
    assertEquals(500 - 8, waiting(kit, gate));
    // at the next release the pacer, asked late, starts again with its burst, as after an idle
    // period: the rest of the stall's permits are not owed
    gate.tell(BudgetGate.Release.INSTANCE);
    assertEquals(500 - 8 - 5, waiting(kit, gate));
    ticks(gate, 1);
    assertEquals(500 - 8 - 6, waiting(kit, gate));
    gate.tell(BudgetGate.Release.INSTANCE);
    ticks(gate, 2);
    assertEquals(500 - 8 - 8, waiting(kit, gate));
  }

  @Test
  void anAdaptiveBudgetsStall_releasesNoClump_andItsNextPermitComesAnIntervalLater() {
    // steady under a ceiling of 200 per second: one permit per 5 ms, burst 1.2; the first goes at
    // once, and 120 ticks back to back release no other (maxIn(2 ms) = 1)
    ActorRef<GateProtocol.Command> gate =
        queued(
            kit,
            RestartBudget.adaptive("stall-adaptive-" + names.incrementAndGet())
                .withMaxRate(200, Duration.ofSeconds(1)),
            100);
    assertEquals(99, waiting(kit, gate));
    ticks(gate, 120);
    assertEquals(99, waiting(kit, gate));
    gate.tell(BudgetGate.Release.INSTANCE);
    ticks(gate, 3);
    assertEquals(99, waiting(kit, gate)); // dropped: due 5 ms after the stall's last offer
    gate.tell(BudgetGate.Release.INSTANCE);
    ticks(gate, 2);
    assertEquals(98, waiting(kit, gate));
  }
}
