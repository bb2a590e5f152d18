package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.RestartBudget;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.junit.jupiter.api.Test;

/**
 * A gate reads {@code System.nanoTime} only on Pekko's default scheduler, with {@code
 * supervision-backoff.gate.clock = scheduler} (the default); under {@code ManualTime} it reads no
 * clock and counts its ticks, so every {@code ManualTime} test of the gates (BudgetGateGrantsExactly,
 * BudgetGatePacesItsGrants, AdaptiveBudgetGate, ...) steps it exactly as before.
 */
final class TheGateReadsAClockOnlyOnPekkosDefaultSchedulerTest {

  @Test
  void underManualTime_theGateReadsNoClock() {
    ActorTestKit kit = ActorTestKit.create(ManualTime.config());
    try {
      GateClock clock = GateClock.of(kit.system());
      assertSame(GateClock.TICKS, clock);
      assertFalse(clock.reads());
      assertThrows(IllegalStateException.class, clock::nanoTime);
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void onTheDefaultScheduler_theGateReadsItsClock() {
    ActorTestKit kit = ActorTestKit.create();
    try {
      GateClock clock = GateClock.of(kit.system());
      assertTrue(clock.reads());
      long before = clock.nanoTime();
      assertTrue(clock.nanoTime() >= before);
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void ticks_turnsTheClockOffOnTheDefaultScheduler() {
    ActorTestKit kit =
        ActorTestKit.create(ConfigFactory.parseString("supervision-backoff.gate.clock = ticks"));
    try {
      assertSame(GateClock.TICKS, GateClock.of(kit.system()));
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void anotherValue_isRejectedNamingTheKey() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                GateClock.of(
                    ConfigFactory.parseString("supervision-backoff.gate.clock = wall"),
                    "org.apache.pekko.actor.LightArrayRevolverScheduler"));
    assertEquals(
        "supervision-backoff.gate.clock must be scheduler or ticks but was wall", e.getMessage());
  }

  @Test
  void printed_aClockSaysWhatItReads() {
    assertEquals("GateClock[ticks]", GateClock.TICKS.toString());
    assertEquals("GateClock[System.nanoTime]", GateClock.NANO_TIME.toString());
  }

  @Test
  void onAClock_aPermitAtALateTickIsNotFollowedSoonerThanTheInterval() {
    long ms = 1_000_000L;
    RestartBudget.Fixed budget = RestartBudget.of("b", 200, Duration.ofSeconds(1)).withBurst(1);
    FixedLimiter onClock = new FixedLimiter(budget, 1, ms, true);
    assertTrue(onClock.tryAcquire(0));
    assertTrue(onClock.tryAcquire(5 * ms + 900_000)); // a tick 0.9 ms late
    assertFalse(onClock.tryAcquire(10 * ms)); // the next tick on time: too soon
    assertTrue(onClock.tryAcquire(10 * ms + 900_000));

    FixedLimiter countingTicks = new FixedLimiter(budget, 1, ms, false);
    assertTrue(countingTicks.tryAcquire(0));
    assertTrue(countingTicks.tryAcquire(5 * ms + 900_000));
    assertTrue(countingTicks.tryAcquire(10 * ms)); // the tick is its quantum: schedule kept
  }
}
