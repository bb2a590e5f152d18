package dev.supervision.backoff.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Found by the jqwik bound property: above 2^53 ns (about 104 days) a {@code long} does not survive
 * the trip through {@code double}, so the bound of attempt 1 (and every bound with multiplier 1.0)
 * came out as {@code minBackoff + 1 ns} instead of {@code minBackoff}.
 */
final class UnjitteredFirstDelayIsExactlyMinBackoffAbove104DaysTest {

  private static final long MIN = (1L << 53) + 3; // not representable as a double

  @Test
  void boundOfAttemptOneIsMinBackoff() {
    assertEquals(MIN, DelaySchedule.boundNanos(MIN, MIN + 1000, 2.0, 1));
  }

  @Test
  void boundWithMultiplierOneIsMinBackoffAtEveryAttempt() {
    assertEquals(MIN, DelaySchedule.boundNanos(MIN, MIN + 1000, 1.0, 1_000_000));
  }

  @Test
  void unjitteredPolicyDelaysStartAtMinBackoff() {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofNanos(MIN), Duration.ofDays(180))
            .withMultiplier(1.0)
            .withJitter(Jitter.none())
            .withMaxRestarts(3);
    List<Duration> delays = policy.delays(new SplittableRandom(1)).toList();
    assertEquals(
        List.of(Duration.ofNanos(MIN), Duration.ofNanos(MIN), Duration.ofNanos(MIN)), delays);
  }
}
