package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An adaptive budget's limiter on a clock (Pekko's default scheduler) paces at the controller's
 * rate with a burst of {@code ceil(rate * tick)}, at least 1; holding, it does not pace (the
 * controller lets its one probe through). The limiter is driven directly, with the times it would
 * read: the gate tests run under {@code ManualTime}, which counts ticks instead.
 */
final class AnAdaptiveLimiterOnAClockPacesAtItsRateTest {

  private static final long MS = 1_000_000L;
  private static final long TICK = 10 * MS;

  private static AdaptiveLimiter atMost(int permits, Duration period, int holdAfter) {
    RestartBudget.Adaptive budget =
        RestartBudget.adaptive("on-a-clock").withMaxRate(permits, period).withHoldAfter(holdAfter);
    return new AdaptiveLimiter(budget, TICK, true, new AdaptiveRateController.Listener() {});
  }

  @Test
  void steadyAtItsCeiling_exactlyOneTicksWorthGoesAtOnce_thenOnePerInterval() {
    // 200 per second: one permit every 5 ms, and exactly 2 in a tick of 10 ms
    AdaptiveLimiter limiter = atMost(200, Duration.ofSeconds(1), 10);
    assertEquals(State.STEADY, limiter.state());
    assertTrue(limiter.tryAcquire(0));
    assertTrue(limiter.tryAcquire(0)); // 200/s x 10 ms = 2, exactly: a burst of 2, not 3
    assertFalse(limiter.tryAcquire(0));
    assertFalse(limiter.tryAcquire(4 * MS));
    assertTrue(limiter.tryAcquire(5 * MS)); // 1 / rate after the burst's first
    assertFalse(limiter.tryAcquire(5 * MS));
    assertTrue(limiter.tryAcquire(10 * MS));
    assertFalse(limiter.tryAcquire(10 * MS));
  }

  @Test
  void holding_itsRateOfZeroIsNoPace_andTheProbeGoesThrough() {
    // one an hour: a pacer left at that rate would hold the probe back for an hour
    AdaptiveLimiter limiter = atMost(1, Duration.ofHours(1), 1);
    assertTrue(limiter.tryAcquire(0));
    assertFalse(limiter.tryAcquire(TICK)); // paced at one an hour
    limiter.onFailure(0, AdaptiveRateController.NOT_GRANTED); // one failure: holds
    assertEquals(State.HOLDING, limiter.state());
    assertEquals(0.0, limiter.rate());
    boolean probed = false;
    for (long now = TICK; now <= 2_000 * MS && !probed; now += TICK) {
      limiter.onTick(now, 1);
      probed = limiter.tryAcquire(now);
    }
    assertTrue(probed, "the controller's probe, not held back by a pacer at rate 0");
  }
}
