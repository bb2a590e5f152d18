package dev.supervision.backoff.reliability;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;

/** jqwik generators shared by the schedule properties: every policy that validation accepts. */
final class Generators {

  /** The longest duration {@code BackoffPolicy} validation accepts (its documented rule). */
  static final long MAX_NANOS = Duration.ofDays(180).toNanos();

  static final long MIN_NANOS = Duration.ofMillis(1).toNanos();

  private Generators() {}

  /** The schedule-relevant settings of one policy. */
  record Spec(long minNanos, long maxNanos, double multiplier, Jitter jitter) {
    BackoffPolicy policy() {
      return BackoffPolicy.exponential(Duration.ofNanos(minNanos), Duration.ofNanos(maxNanos))
          .withMultiplier(multiplier)
          .withJitter(jitter);
    }
  }

  /** Durations from 1 ms to 180 days, biased towards both ends and small values. */
  static Arbitrary<Long> durationsNanos() {
    return Arbitraries.longs()
        .between(MIN_NANOS, MAX_NANOS)
        .withDistribution(RandomDistribution.biased())
        .edgeCases(c -> c.includeOnly(MIN_NANOS, MAX_NANOS));
  }

  static Arbitrary<Double> multipliers() {
    return Arbitraries.doubles()
        .between(1.0, 10.0)
        .ofScale(6)
        .edgeCases(c -> c.includeOnly(1.0, 10.0));
  }

  /** Draws in [0, 1), with 0 and the largest double below 1 as edge cases. */
  static Arbitrary<Double> draws() {
    return Arbitraries.oneOf(
        Arbitraries.doubles().between(0.0, true, 1.0, false),
        Arbitraries.of(0.0, Math.nextDown(1.0), 0.5));
  }

  static Arbitrary<Integer> attempts() {
    return Arbitraries.integers()
        .between(1, 10_000_000)
        .withDistribution(RandomDistribution.biased())
        .edgeCases(c -> c.includeOnly(1, 2, 10_000_000));
  }

  /** The four standard jitters and two custom ones. */
  static Arbitrary<Jitter> jitters() {
    return Arbitraries.of(
        Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none(), HALF_BOUND, WILD);
  }

  static Arbitrary<Spec> specs() {
    return Combinators.combine(durationsNanos(), durationsNanos(), multipliers(), jitters())
        .as((a, b, m, j) -> new Spec(Math.min(a, b), Math.max(a, b), m, j));
  }

  /** A well-behaved custom jitter: {@code bound * (0.5 + draw)}, up to 1.5 times the bound. */
  static final Jitter HALF_BOUND =
      new Jitter() {
        @Override
        public Duration delay(Step step, double draw) {
          return Duration.ofNanos((long) (step.bound().toNanos() * (0.5 + draw)));
        }

        @Override
        public String toString() {
          return "custom(halfBound)";
        }
      };

  /**
   * A badly behaved custom jitter that returns negative, overflowing and far too long delays; the
   * schedule must clamp all of them into {@code [0, maxBackoff]}.
   */
  static final Jitter WILD =
      new Jitter() {
        @Override
        public Duration delay(Step step, double draw) {
          if (draw < 0.2) {
            return Duration.ofNanos(-1 - (long) (draw * Long.MAX_VALUE));
          }
          if (draw < 0.4) {
            return Duration.ofSeconds(Long.MAX_VALUE); // toNanos() overflows
          }
          if (draw < 0.5) {
            return Duration.ofSeconds(Long.MIN_VALUE);
          }
          if (draw < 0.7) {
            return step.maxBackoff().multipliedBy(3);
          }
          return step.bound().multipliedBy(2).minus(step.previous());
        }

        @Override
        public String toString() {
          return "custom(wild)";
        }
      };

  static boolean isCustom(Jitter jitter) {
    return jitter == HALF_BOUND || jitter == WILD;
  }
}
