package dev.supervision.backoff;

import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.internal.util.StandardJitter;
import java.time.Duration;
import java.util.Locale;

/**
 * Turns the exponential bound of one restart attempt into the actual delay, using one uniform
 * random draw: a pure function, so that schedules are reproducible for a seed.
 *
 * <p>The four standard kinds follow Marc Brooker's "Exponential Backoff and Jitter" (AWS
 * Architecture Blog, 2015). With {@code e = min(maxBackoff, minBackoff * multiplier^(attempt-1))}
 * and {@code u} uniform in {@code [0, 1)}:
 *
 * <ul>
 *   <li>{@link #full()}: {@code u * e}, the default: the lowest peak load on a recovering resource.
 *   <li>{@link #equal()}: {@code e/2 + u * e/2}.
 *   <li>{@link #decorrelated()}: {@code min(maxBackoff, minBackoff + u * (3 * previous -
 *       minBackoff))}.
 *   <li>{@link #none()}: {@code e}.
 * </ul>
 *
 * <p>Users may implement their own; one instance is shared by every actor of a policy, so it must
 * be thread-safe. A delay above {@code maxBackoff} is clamped to it (only a {@link RetryAfter} hint
 * may exceed it). A jitter that throws, or returns {@code null} or a negative delay, costs no
 * restart: that attempt gets {@link #full()} jitter, and one WARN line names the jitter.
 */
@FunctionalInterface
public interface Jitter {

  /**
   * Computes the delay of one restart attempt.
   *
   * @param step the attempt, the policy's bounds, this attempt's exponential bound and the previous
   *     delay; never {@code null}
   * @param draw a uniform random number in {@code [0, 1)}
   * @return the delay; clamped to {@code step.maxBackoff()}; {@code null} or negative is broken
   *     (see above)
   */
  Duration delay(Step step, double draw);

  /**
   * Full jitter.
   *
   * @return the full jitter, stateless; equal to every other, printed {@code full}
   */
  static Jitter full() {
    return standard(StandardJitter.FULL);
  }

  /**
   * Equal jitter.
   *
   * @return the equal jitter, stateless; equal to every other, printed {@code equal}
   */
  static Jitter equal() {
    return standard(StandardJitter.EQUAL);
  }

  /**
   * Decorrelated jitter; {@code previous} is {@code minBackoff} for the first attempt.
   *
   * @return the decorrelated jitter, stateless; equal to every other, printed {@code decorrelated}
   */
  static Jitter decorrelated() {
    return standard(StandardJitter.DECORRELATED);
  }

  /**
   * No jitter: with min 100 ms, max 1 s and multiplier 2 the delays are 100, 200, 400, 800, 1000,
   * ... ms.
   *
   * @return no jitter, stateless; equal to every other, printed {@code none}
   */
  static Jitter none() {
    return standard(StandardJitter.NONE);
  }

  // a local record, so the built-in kinds need no second type (it and this one would import each
  // other); equal by kind, printed by its configured name
  private static Jitter standard(StandardJitter arithmetic) {
    record Standard(StandardJitter arithmetic) implements Jitter {
      @Override
      public Duration delay(Step step, double draw) {
        return Duration.ofNanos(
            arithmetic.delayNanos(
                step.minBackoff().toNanos(),
                step.maxBackoff().toNanos(),
                step.bound().toNanos(),
                step.previous().toNanos(),
                draw));
      }

      @Override
      public String toString() {
        return arithmetic.name().toLowerCase(Locale.ROOT);
      }
    }
    return new Standard(arithmetic);
  }

  /**
   * Everything a jitter may use to compute the delay of one attempt. Immutable.
   *
   * @param attempt the restart attempt, 1 for the first restart after a start or a reset
   * @param minBackoff the policy's {@link BackoffPolicy#getMinBackoff()}
   * @param maxBackoff the policy's {@link BackoffPolicy#getMaxBackoff()}
   * @param bound the exponential bound {@code min(maxBackoff, minBackoff *
   *     multiplier^(attempt-1))}, computed without overflow for any attempt
   * @param previous the delay drawn for the previous attempt, {@code minBackoff} for attempt 1
   */
  record Step(
      int attempt, Duration minBackoff, Duration maxBackoff, Duration bound, Duration previous) {

    /**
     * Validates the step.
     *
     * @param attempt the restart attempt, at least 1
     * @param minBackoff the policy's minimum backoff
     * @param maxBackoff the policy's maximum backoff
     * @param bound the exponential bound for this attempt
     * @param previous the delay drawn for the previous attempt
     * @throws NullPointerException if a duration is {@code null}
     * @throws IllegalArgumentException if {@code attempt < 1}, a duration is negative or above
     *     {@code Long.MAX_VALUE} nanoseconds, or {@code minBackoff > maxBackoff}
     */
    public Step {
      Check.argument(attempt >= 1, "attempt", ">= 1", attempt);
      nanos(minBackoff, "minBackoff");
      nanos(maxBackoff, "maxBackoff");
      nanos(bound, "bound");
      nanos(previous, "previous");
      Check.argument(
          minBackoff.compareTo(maxBackoff) <= 0,
          "maxBackoff",
          ">= minBackoff " + minBackoff,
          maxBackoff);
    }

    private static void nanos(Duration value, String name) {
      Check.nonNull(value, name);
      Check.argument(!value.isNegative(), name, ">= 0", value);
      Check.argument(value.compareTo(LONGEST_IN_NANOS) <= 0, name, "<= " + LONGEST_IN_NANOS, value);
    }

    // the standard jitters compute in nanoseconds
    private static final Duration LONGEST_IN_NANOS = Duration.ofNanos(Long.MAX_VALUE);
  }
}
