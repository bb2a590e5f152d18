package dev.supervision.backoff;

import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.internal.util.StandardJitter;
import java.time.Duration;
import java.util.Locale;

/**
 * Turns the exponential bound of one restart attempt into the actual delay, using one uniform random
 * draw. A jitter is a pure function: given the same {@link Step} and draw it returns the same
 * delay, which is what makes schedules reproducible for a seed and testable with fixed draws.
 *
 * <p>The four standard kinds follow Marc Brooker's "Exponential Backoff and Jitter" (AWS
 * Architecture Blog, 2015). With {@code e = min(maxBackoff, minBackoff * multiplier^(attempt-1))}
 * and {@code u} uniform in {@code [0, 1)}:
 *
 * <ul>
 *   <li>{@link #full()}: {@code u * e}, the default. Spreads restarts over the whole window, which
 *       gives the lowest peak load on a recovering resource.
 *   <li>{@link #equal()}: {@code e/2 + u * e/2}. Never shorter than half the bound.
 *   <li>{@link #decorrelated()}: {@code min(maxBackoff, minBackoff + u * (3 * previous - minBackoff))},
 *       growing from the previous delay rather than from the attempt number.
 *   <li>{@link #none()}: {@code e}, deterministic.
 * </ul>
 *
 * <p>Users may implement their own. The supervisor clamps a delay above {@code maxBackoff} to it:
 * the cap is a hard ceiling for every jitter (only a {@link RetryAfter} hint may lengthen a delay
 * beyond it). A jitter that throws, or returns {@code null} or a negative delay, costs no restart:
 * that attempt gets {@link #full()} jitter instead, and one WARN line names the jitter and what it
 * did. Implementations must be thread-safe (stateless is simplest): one instance is shared by every
 * actor of a policy.
 */
@FunctionalInterface
public interface Jitter {

  /**
   * Computes the delay of one restart attempt.
   *
   * @param step the attempt, the policy's bounds, this attempt's exponential bound and the previous
   *     delay; never {@code null}
   * @param draw a uniform random number in {@code [0, 1)}
   * @return the delay; a value above {@code step.maxBackoff()} is clamped to it by the caller. A
   *     jitter that throws, or returns {@code null} or a negative delay, is broken: the supervisor
   *     logs one WARN line naming it and uses full jitter for that attempt (the restart still
   *     happens)
   */
  Duration delay(Step step, double draw);

  /**
   * Full jitter, {@code random(0, min(max, min * m^(n-1)))}: the default, as recommended by AWS.
   *
   * @return the full jitter, stateless; equal to every other, printed {@code full}
   */
  static Jitter full() {
    return standard(StandardJitter.FULL);
  }

  /**
   * Equal jitter, {@code e/2 + random(0, e/2)}.
   *
   * @return the equal jitter, stateless; equal to every other, printed {@code equal}
   */
  static Jitter equal() {
    return standard(StandardJitter.EQUAL);
  }

  /**
   * Decorrelated jitter, {@code min(max, random(min, previous * 3))}, where {@code previous} is
   * {@code minBackoff} before the first restart and after a reset.
   *
   * @return the decorrelated jitter, stateless; equal to every other, printed {@code decorrelated}
   */
  static Jitter decorrelated() {
    return standard(StandardJitter.DECORRELATED);
  }

  /**
   * No jitter: {@code min(max, min * m^(n-1))}, deterministic. With min 100 ms, max 1 s and the
   * default multiplier the delays are 100, 200, 400, 800, 1000, 1000, ... ms.
   *
   * @return no jitter, stateless; equal to every other, printed {@code none}
   */
  static Jitter none() {
    return standard(StandardJitter.NONE);
  }

  /**
   * One of the standard jitters, computed by {@code arithmetic}. Its instances are made here, in this
   * file, so that the interface and its built-in kinds need no second type (one would import this
   * interface, and this interface it).
   */
  private static Jitter standard(StandardJitter arithmetic) {
    /** A standard jitter: equal to another of its kind, printed by its name (as configured). */
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
   * @param bound the exponential bound {@code min(maxBackoff, minBackoff * multiplier^(attempt-1))},
   *     computed without overflow for any attempt
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
     * @throws IllegalArgumentException if {@code attempt < 1}, if a duration is negative or longer
     *     than {@code Long.MAX_VALUE} nanoseconds (about 292 years), or if {@code minBackoff >
     *     maxBackoff}
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

    /** The longest duration a step can carry: the standard jitters compute in nanoseconds. */
    private static final Duration LONGEST_IN_NANOS = Duration.ofNanos(Long.MAX_VALUE);
  }
}
