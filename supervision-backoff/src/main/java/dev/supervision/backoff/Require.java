package dev.supervision.backoff;

import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;

/**
 * Argument checks shared by the settings of this package: the values' own rules (a delay is at most
 * {@link #MAX_DELAY}, a count is {@code >= 0}) on the library's one message format, {@link Check}
 * ({@code minBackoff must be > 0 but was PT0S}, a {@code ParameterException} that carries the
 * parameter's name, so that the configuration reader knows which key to blame). {@code nonNull} and
 * {@code argument} are {@link Check}'s, named here so that this package's settings read alike.
 *
 * <p>Package-private: not API.
 */
final class Require {

  /** The longest delay the library will ever schedule; longer ones are rejected or clamped. */
  static final Duration MAX_DELAY = Duration.ofDays(180);

  private Require() {}

  static <T> T nonNull(T value, String name) {
    return Check.nonNull(value, name);
  }

  static void argument(boolean condition, String name, String rule, Object value) {
    Check.argument(condition, name, rule, value);
  }

  static void positive(Duration value, String name) {
    Check.positive(value, name);
    argument(value.compareTo(MAX_DELAY) <= 0, name, "<= " + MAX_DELAY, value);
  }

  static void nonNegative(int value, String name) {
    argument(value >= 0, name, ">= 0", value);
  }
}
