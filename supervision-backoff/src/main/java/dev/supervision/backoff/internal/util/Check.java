package dev.supervision.backoff.internal.util;

import java.time.Duration;
import java.util.Objects;

/**
 * INTERNAL API: the library's argument checks, the one place of their message format. A message
 * names the parameter, the rule and the rejected value, for example {@code minBackoff must be > 0
 * but was PT0S}; a rejected value throws a {@link ParameterException}, an {@code
 * IllegalArgumentException} that also carries the parameter's name. The values' own rules (the
 * longest delay, for example) are in the API package's {@code Require}, built on these; the spi's
 * arithmetic uses these directly.
 */
public final class Check {

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
