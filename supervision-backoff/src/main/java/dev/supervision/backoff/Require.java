package dev.supervision.backoff;

import dev.supervision.backoff.internal.util.ParameterException;
import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks shared by the settings of this package. Every message names the parameter, the
 * rule and the rejected value, for example {@code minBackoff must be > 0 but was PT0S}. A rejected
 * value throws a {@link ParameterException}, an {@code IllegalArgumentException} that also carries
 * the parameter's name, so that the configuration reader knows which key to blame.
 *
 * <p>Package-private: not API.
 */
final class Require {

  /** The longest delay the library will ever schedule; longer ones are rejected or clamped. */
  static final Duration MAX_DELAY = Duration.ofDays(180);

  private Require() {}

  static <T> T nonNull(T value, String name) {
    return Objects.requireNonNull(value, () -> name + " must not be null");
  }

  static void argument(boolean condition, String name, String rule, Object value) {
    if (!condition) {
      throw new ParameterException(name, name + " must be " + rule + " but was " + value);
    }
  }

  static void positive(Duration value, String name) {
    nonNull(value, name);
    argument(!value.isNegative() && !value.isZero(), name, "> 0", value);
    argument(value.compareTo(MAX_DELAY) <= 0, name, "<= " + MAX_DELAY, value);
  }

  static void nonNegative(int value, String name) {
    argument(value >= 0, name, ">= 0", value);
  }
}
