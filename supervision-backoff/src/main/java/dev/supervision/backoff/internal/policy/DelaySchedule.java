package dev.supervision.backoff.internal.policy;

import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.internal.util.StandardJitter;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * INTERNAL API: the delay schedule of one supervised actor (or one {@code BackoffPolicy.delays}
 * stream); not thread-safe. The bound is computed in {@code double} and capped before the
 * conversion, so no attempt overflows. Every delay is clamped to {@code [0, max]}; a user jitter
 * that throws, or returns null or a negative delay, gets full jitter on the same bound and draw for
 * that attempt (see {@link #takeBrokenJitter}).
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

  // at attempt 0
  public DelaySchedule(Duration min, Duration max, double multiplier, Jitter jitter) {
    this.min = min;
    this.max = max;
    this.minNanos = min.toNanos();
    this.maxNanos = max.toNanos();
    this.multiplier = multiplier;
    this.jitter = jitter;
    this.previousNanos = minNanos;
  }

  // min(max, min * multiplier^(attempt-1)) in nanoseconds, without overflow
  public static long boundNanos(long minNanos, long maxNanos, double multiplier, int attempt) {
    if (attempt <= 1 || multiplier == 1.0) {
      return minNanos; // exact: above 2^53 ns a long does not survive the trip through double
    }
    // the cast saturates: a bound of 2^63 ns or more (or +Infinity) becomes Long.MAX_VALUE
    double bound = minNanos * Math.pow(multiplier, attempt - 1);
    return Math.max(minNanos, Math.min(maxNanos, (long) bound));
  }

  // advances to the next attempt and draws its delay, within [0, max]
  public long nextDelayNanos(RandomGenerator random) {
    if (attempt != Integer.MAX_VALUE) {
      attempt++;
    }
    long bound = boundNanos(minNanos, maxNanos, multiplier, attempt);
    double draw = random.nextDouble();
    Duration delayed;
    Throwable threw = null;
    try {
      delayed =
          jitter.delay(
              new Jitter.Step(
                  attempt, min, max, Duration.ofNanos(bound), Duration.ofNanos(previousNanos)),
              draw);
    } catch (Throwable t) {
      Causes.rethrowIfFatal(t);
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

  // a user jitter that threw (threw set) or returned null or a negative delay
  public record BrokenJitter(Jitter jitter, int attempt, Duration returned, Throwable threw) {

    // for a log line: "threw java.lang.ArithmeticException: / by zero"
    public String problem() {
      return threw != null
          ? "threw " + Causes.describe(threw)
          : returned == null ? "returned null" : "returned a negative delay " + returned;
    }
  }

  // the last draw's broken jitter, or null; forgets it
  public BrokenJitter takeBrokenJitter() {
    BrokenJitter broken = brokenJitter;
    brokenJitter = null;
    return broken;
  }

  // the next delay is drawn as for the first one
  public void reset() {
    attempt = 0;
    previousNanos = minNanos;
  }

  // delays drawn since the start or the last reset
  public int attempt() {
    return attempt;
  }
}
