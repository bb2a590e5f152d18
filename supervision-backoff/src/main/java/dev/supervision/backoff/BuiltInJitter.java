package dev.supervision.backoff;

import dev.supervision.backoff.internal.util.StandardJitter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The four standard jitters of {@link Jitter}, as shared, stateless instances. Package-private:
 * users obtain them through {@link Jitter#full()} and friends. The arithmetic is {@link
 * StandardJitter}'s, which knows nothing of this type (so that the two do not import each other).
 */
enum BuiltInJitter implements Jitter {
  FULL(StandardJitter.FULL),
  EQUAL(StandardJitter.EQUAL),
  DECORRELATED(StandardJitter.DECORRELATED),
  NONE(StandardJitter.NONE);

  private final StandardJitter arithmetic;

  BuiltInJitter(StandardJitter arithmetic) {
    this.arithmetic = arithmetic;
  }

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

  /** The names of the four jitters, in declaration order: what configuration accepts. */
  static final List<String> NAMES =
      List.of(FULL.toString(), EQUAL.toString(), DECORRELATED.toString(), NONE.toString());

  /**
   * The jitter of {@code name}, one of {@link #NAMES}.
   *
   * @throws IllegalArgumentException if {@code name} names no jitter
   */
  static BuiltInJitter named(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  /** The name used in configuration and in {@code toString}: {@code full}, {@code equal}, ... */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
