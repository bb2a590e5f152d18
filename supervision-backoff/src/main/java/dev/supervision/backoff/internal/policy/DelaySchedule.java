package dev.supervision.backoff.internal.policy;

import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.internal.util.StandardJitter;
import java.time.Duration;
import java.util.random.RandomGenerator;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: the delay schedule of one supervised actor. Not thread-safe: it belongs to one actor
 * (or one {@code BackoffPolicy.delays} stream).
 *
 * <p>Arithmetic saturates: the exponential bound is computed in {@code double} and capped before it
 * is converted to nanoseconds, so attempt 1,000,000 (or {@code Integer.MAX_VALUE}) gives the cap, never
 * an overflow. Every delay is clamped to {@code [0, max]}, whatever the jitter returns; a user
 * jitter that throws, or returns null or a negative delay, gets full jitter instead for that
 * attempt (see {@link #takeBrokenJitter}).
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
  private BrokenJitter brokenJitter;

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
    // the cast saturates: a bound of 2^63 ns or more (or +Infinity) becomes Long.MAX_VALUE
    double bound = minNanos * Math.pow(multiplier, attempt - 1);
    return Math.max(minNanos, Math.min(maxNanos, (long) bound));
  }

  /**
   * Advances to the next attempt and draws its delay.
   *
   * @param random the source of the draw
   * @return the delay in nanoseconds, within {@code [0, max]}
   */
  public long nextDelayNanos(RandomGenerator random) {
    if (attempt != Integer.MAX_VALUE) {
      attempt++;
    }
    long bound = boundNanos(minNanos, maxNanos, multiplier, attempt);
    double draw = random.nextDouble();
    // The standard jitters compute in nanoseconds behind the same call, exactly (no double
    // rounding).
    Duration delayed;
    Throwable threw = null;
    try {
      delayed =
          jitter.delay(
              new Jitter.Step(
                  attempt, min, max, Duration.ofNanos(bound), Duration.ofNanos(previousNanos)),
              draw);
    } catch (Throwable t) {
      if (!NonFatal.apply(t)) {
        throw t;
      }
      delayed = null;
      threw = t;
    }
    long delay;
    if (delayed == null || delayed.isNegative()) {
      // a broken user jitter: this attempt gets full jitter on the same bound and draw instead
      brokenJitter = new BrokenJitter(jitter, attempt, delayed, threw);
      delay = StandardJitter.FULL.delayNanos(minNanos, maxNanos, bound, previousNanos, draw);
    } else {
      delay = Math.min(Check.saturatedNanos(delayed), maxNanos); // not negative: checked above
    }
    previousNanos = delay;
    return delay;
  }

  /**
   * What went wrong with a user jitter in one attempt: it threw ({@code threw} is set) or returned
   * null or a negative delay ({@code returned}).
   *
   * @param jitter the jitter
   * @param attempt the attempt it failed on
   * @param returned what it returned, null if it threw or returned null
   * @param threw what it threw, or null
   */
  public record BrokenJitter(Jitter jitter, int attempt, Duration returned, Throwable threw) {

    /**
     * What went wrong, for a log line.
     *
     * @return for example {@code "threw java.lang.ArithmeticException: / by zero"}
     */
    public String problem() {
      if (threw != null) {
        return "threw " + Causes.describe(threw);
      }
      return returned == null ? "returned null" : "returned a negative delay " + returned;
    }
  }

  /**
   * The problem of the user jitter in the last call of {@link #nextDelayNanos}, if it was broken,
   * and forgets it. A broken jitter (one that throws, or returns null or a negative delay) never
   * makes {@link #nextDelayNanos} fail: that attempt gets full jitter on the same exponential bound
   * and the same draw instead, within {@code [0, max]}.
   *
   * @return the problem, or null if the last call had none
   */
  public BrokenJitter takeBrokenJitter() {
    BrokenJitter broken = brokenJitter;
    brokenJitter = null;
    return broken;
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
}
