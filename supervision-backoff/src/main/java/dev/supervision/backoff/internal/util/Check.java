package dev.supervision.backoff.internal.util;

import java.time.Duration;
import java.util.Objects;

/**
 * INTERNAL API: every argument check of the core, in one message format: {@code minBackoff must
 * be > 0 but was PT0S}. A rejected value throws a {@link ParameterException} (carrying the parameter, so
 * the configuration reader knows which key to blame), a {@code null} a {@link NullPointerException}
 * naming the parameter.
 */
public final class Check {

  /** The longest delay the library will ever schedule; longer ones are rejected or clamped. */
  public static final Duration MAX_DELAY = Duration.ofDays(180);

  private Check() {}

  // "name must not be null"
  public static <T> T nonNull(T value, String name) {
    return Objects.requireNonNull(value, () -> name + " must not be null");
  }

  // "name must be rule but was value"
  public static void argument(boolean condition, String name, String rule, Object value) {
    if (!condition) {
      throw new ParameterException(name, name + " must be " + rule + " but was " + value);
    }
  }

  public static void finiteAtLeast(double value, int least, String name) {
    argument(value >= least && Double.isFinite(value), name, "finite and >= " + least, value);
  }

  public static Duration positive(Duration value, String name) {
    nonNull(value, name);
    argument(!value.isNegative() && !value.isZero(), name, "> 0", value);
    return value;
  }

  // > 0 and <= MAX_DELAY
  public static Duration delay(Duration value, String name) {
    positive(value, name);
    argument(value.compareTo(MAX_DELAY) <= 0, name, "<= " + MAX_DELAY, value);
    return value;
  }

  public static int atLeast(int value, int least, String name) {
    argument(value >= least, name, ">= " + least, value);
    return value;
  }

  public static String nonBlank(String value, String name) {
    nonNull(value, name);
    argument(!value.isBlank(), name, "non-blank", "\"" + value + "\"");
    return value;
  }

  // d.toNanos(), saturated at Long.MIN_VALUE/MAX_VALUE (as Caffeine's toNanosSaturated)
  public static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
