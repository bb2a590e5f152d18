package dev.supervision.backoff.internal;

import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * INTERNAL API: the delay schedule of one supervised actor. Not thread-safe: it belongs to one actor
 * (or one {@code BackoffPolicy.delays} stream).
 *
 * <p>Arithmetic saturates: the exponential bound is computed in {@code double} and capped before it
 * is converted to nanoseconds, so attempt 1,000,000 (or {@code Integer.MAX_VALUE}) gives the cap, never
 * an overflow. Every delay is clamped to {@code [0, max]}, whatever the jitter returns.
 */
public final class DelaySchedule {

  private final Duration min;
  private final Duration max;
  private final long minNanos;
  private final long maxNanos;
  private final double multiplier;
  private final Jitter jitter;

  private int attempt;
  private long previousNanos;

  /**
   * A schedule at attempt 0.
   *
   * @param min the minimum backoff
   * @param max the maximum backoff, {@code >= min}
   * @param multiplier the growth factor, {@code >= 1}
   * @param jitter the jitter
   */
  public DelaySchedule(Duration min, Duration max, double multiplier, Jitter jitter) {
    this.min = min;
    this.max = max;
    this.minNanos = min.toNanos();
    this.maxNanos = max.toNanos();
    this.multiplier = multiplier;
    this.jitter = jitter;
    this.previousNanos = minNanos;
  }

  /**
   * {@code min(max, min * multiplier^(attempt-1))} in nanoseconds, without overflow.
   *
   * @param minNanos the minimum backoff in nanoseconds
   * @param maxNanos the maximum backoff in nanoseconds
   * @param multiplier the growth factor
   * @param attempt the attempt, {@code >= 1}
   * @return the bound in nanoseconds, within {@code [minNanos, maxNanos]}
   */
  public static long boundNanos(long minNanos, long maxNanos, double multiplier, int attempt) {
    if (attempt <= 1 || multiplier == 1.0) {
      return minNanos; // exact: above 2^53 ns a long does not survive the trip through double
    }
    double bound = minNanos * Math.pow(multiplier, attempt - 1);
    if (!(bound < maxNanos)) { // also catches NaN and +Infinity
      return maxNanos;
    }
    return Math.max(minNanos, (long) bound);
  }

  /**
   * Clamps a delay to {@code [0, maxNanos]}.
   *
   * @param nanos a delay in nanoseconds
   * @param maxNanos the cap
   * @return the clamped delay
   */
  public static long clamp(long nanos, long maxNanos) {
    return nanos < 0 ? 0 : Math.min(nanos, maxNanos);
  }

  /**
   * Advances to the next attempt and draws its delay.
   *
   * @param random the source of the draw
   * @return the delay in nanoseconds, within {@code [0, max]}
   */
  public long nextDelayNanos(RandomGenerator random) {
    if (attempt < Integer.MAX_VALUE) {
      attempt++;
    }
    long bound = boundNanos(minNanos, maxNanos, multiplier, attempt);
    double draw = random.nextDouble();
    // The standard jitters compute in nanoseconds behind the same call, exactly (no double rounding).
    Duration delayed =
        jitter.delay(
            new Jitter.Step(attempt, min, max, Duration.ofNanos(bound), Duration.ofNanos(previousNanos)),
            draw);
    if (delayed == null) {
      throw new IllegalStateException("jitter " + jitter + " returned null for attempt " + attempt);
    }
    long delay = clamp(saturatedNanos(delayed), maxNanos);
    previousNanos = delay;
    return delay;
  }

  /** Forgets every attempt: the next delay is drawn as for the first one. */
  public void reset() {
    attempt = 0;
    previousNanos = minNanos;
  }

  /**
   * The number of delays drawn since the start or the last reset.
   *
   * @return the attempt count
   */
  public int attempt() {
    return attempt;
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
