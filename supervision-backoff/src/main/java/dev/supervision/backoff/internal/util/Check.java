package dev.supervision.backoff.internal.util;

import java.time.Duration;
import java.util.Objects;

/**
 * INTERNAL API: the library's argument checks, the one place of their message format. A message
 * names the parameter, the rule and the rejected value, for example {@code minBackoff must be > 0
 * but was PT0S}; a rejected value throws a {@link ParameterException}, an {@code
 * IllegalArgumentException} that also carries the parameter's name, so that the configuration
 * reader knows which key to blame; a {@code null} throws a {@link NullPointerException} naming the
 * parameter. Every layer of the core checks its arguments here.
 */
public final class Check {

  /** The longest delay the library will ever schedule; longer ones are rejected or clamped. */
  public static final Duration MAX_DELAY = Duration.ofDays(180);

  private Check() {}

  /**
   * Rejects {@code null}.
   *
   * @param value the value
   * @param name the parameter's name
   * @param <T> the value's type
   * @return the value
   * @throws NullPointerException if {@code value} is {@code null}: {@code name must not be null}
   */
  public static <T> T nonNull(T value, String name) {
    return Objects.requireNonNull(value, () -> name + " must not be null");
  }

  /**
   * Rejects a value that breaks its rule.
   *
   * @param condition whether the value keeps the rule
   * @param name the parameter's name
   * @param rule the rule, for the message: {@code > 0}, {@code in (0, 1]}
   * @param value the value, for the message
   * @throws ParameterException if {@code condition} is false: {@code name must be rule but was
   *     value}
   */
  public static void argument(boolean condition, String name, String rule, Object value) {
    if (!condition) {
      throw new ParameterException(name, name + " must be " + rule + " but was " + value);
    }
  }

  /**
   * Rejects a number that is NaN, infinite or below {@code least}.
   *
   * @param value the number
   * @param least the least value allowed
   * @param name the parameter's name
   * @throws ParameterException if not: {@code name must be finite and >= least but was value}
   */
  public static void finiteAtLeast(double value, int least, String name) {
    argument(value >= least && Double.isFinite(value), name, "finite and >= " + least, value);
  }

  /**
   * Rejects a duration that is {@code null}, zero or negative.
   *
   * @param value the duration
   * @param name the parameter's name
   * @return the duration
   * @throws NullPointerException if {@code value} is {@code null}
   * @throws ParameterException if {@code value} is not {@code > 0}
   */
  public static Duration positive(Duration value, String name) {
    nonNull(value, name);
    argument(!value.isNegative() && !value.isZero(), name, "> 0", value);
    return value;
  }

  /**
   * Rejects a delay that is {@code null}, zero, negative or longer than {@link #MAX_DELAY}.
   *
   * @param value the delay
   * @param name the parameter's name
   * @return the delay
   * @throws NullPointerException if {@code value} is {@code null}
   * @throws ParameterException if {@code value} is not {@code > 0} and {@code <= 180 days}
   */
  public static Duration delay(Duration value, String name) {
    positive(value, name);
    argument(value.compareTo(MAX_DELAY) <= 0, name, "<= " + MAX_DELAY, value);
    return value;
  }

  /**
   * Rejects a whole number below {@code least}.
   *
   * @param value the number
   * @param least the least value allowed
   * @param name the parameter's name
   * @return the number
   * @throws ParameterException if {@code value < least}: {@code name must be >= least but was
   *     value}
   */
  public static int atLeast(int value, int least, String name) {
    argument(value >= least, name, ">= " + least, value);
    return value;
  }

  /**
   * Rejects a name that is {@code null} or blank.
   *
   * @param value the name
   * @param name the parameter's name
   * @return the name
   * @throws NullPointerException if {@code value} is {@code null}
   * @throws ParameterException if {@code value} is blank
   */
  public static String nonBlank(String value, String name) {
    nonNull(value, name);
    argument(!value.isBlank(), name, "non-blank", "\"" + value + "\"");
    return value;
  }

  /**
   * A duration in nanoseconds, saturated instead of overflowing (as Caffeine's {@code
   * toNanosSaturated}).
   *
   * @param d the duration
   * @return {@code d.toNanos()}, or {@code Long.MAX_VALUE} / {@code Long.MIN_VALUE} for a duration
   *     beyond the range of a {@code long} of nanoseconds (about 292 years)
   */
  public static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
