package dev.supervision.backoff.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Extreme but legal inputs to the schedule, as an independent checker would try them (a random
 * generator that breaks its contract, a huge or unit multiplier, the millionth attempt, the smallest
 * policy, a user jitter that returns an enormous or the most negative delay): every delay stays
 * within {@code [0, maxBackoff]}, never an overflow or an exception.
 */
final class ExtremeInputsKeepEveryDelayWithinTheCapTest {

  private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);
  private static final BackoffPolicy BASE =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));

  /** A generator whose every draw is {@code draw}, whatever the contract of nextDouble says. */
  static RandomGenerator always(double draw) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return 0;
      }

      @Override
      public double nextDouble() {
        return draw;
      }
    };
  }

  @ParameterizedTest(name = "draw {0}")
  @CsvSource({"NaN", "-1.0", "1.0", "2.0", "Infinity", "-Infinity", "0.9999999999999999"})
  void aGeneratorThatBreaksItsContractStillGivesDelaysWithinTheCap(double draw) {
    for (Jitter jitter :
        List.of(Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none())) {
      for (Duration max :
          List.of(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofDays(180))) {
        BackoffPolicy p = BackoffPolicy.exponential(Duration.ofMillis(100), max).withJitter(jitter);
        p.delays(always(draw))
            .limit(80)
            .forEach(
                d ->
                    assertTrue(
                        !d.isNegative() && d.compareTo(max) <= 0,
                        () -> jitter + " max " + max + " draw " + draw + " gave " + d));
      }
    }
  }

  @Test
  void aHugeMultiplierReachesTheCapAtTheSecondAttemptAndStaysThere() {
    BackoffPolicy p = BASE.withMultiplier(Double.MAX_VALUE).withJitter(Jitter.none());
    assertEquals(
        List.of(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(1)),
        p.delays(always(0.5)).limit(3).toList());
  }

  @Test
  void multiplierExactlyOneKeepsEveryDelayAtMinBackoff() {
    BackoffPolicy p = BASE.withMultiplier(1.0).withJitter(Jitter.none());
    assertTrue(p.delays(always(0.5)).limit(10_000).allMatch(Duration.ofMillis(100)::equals));
  }

  @Test
  void theMillionthAttemptGetsTheCapExactly() {
    BackoffPolicy p =
        BackoffPolicy.exponential(Duration.ofNanos(1), Duration.ofDays(180))
            .withMultiplier(1.001)
            .withJitter(Jitter.none());
    assertEquals(
        Duration.ofDays(180), p.delays(always(0.5)).skip(999_999).findFirst().orElseThrow());
  }

  @Test
  void smallestLegalPolicyGivesOneNanosecondOrLess() {
    BackoffPolicy p = BackoffPolicy.exponential(Duration.ofNanos(1), Duration.ofNanos(1));
    assertTrue(
        p.delays(RandomGenerator.of("L64X128MixRandom"))
            .limit(1000)
            .allMatch(d -> !d.isNegative() && d.compareTo(Duration.ofNanos(1)) <= 0));
  }

  @Test
  void aJitterThatReturnsAnEnormousDelayIsClampedToTheCap() {
    BackoffPolicy p = BASE.withJitter((step, draw) -> HUGE);
    assertTrue(p.delays(always(0.5)).limit(5).allMatch(Duration.ofSeconds(1)::equals));
  }

  @Test
  void aJitterThatReturnsTheMostNegativeDurationGetsFullJitterWithinTheBound() {
    BackoffPolicy p = BASE.withJitter((step, draw) -> Duration.ofSeconds(Long.MIN_VALUE));
    // full jitter on the bounds 100, 200, 400, 800, 1000 ms with draw 0.5
    assertEquals(
        List.of(50L, 100L, 200L, 400L, 500L, 500L),
        p.delays(always(0.5)).limit(6).map(Duration::toMillis).toList());
  }
}
