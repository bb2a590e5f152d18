package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile and extreme inputs to the values of the API (policy, schedule, budget), as an independent
 * checker would try them: each bad value fails at construction with a message naming the parameter
 * (or, from configuration, the key path) and the value; each extreme but legal value gives delays
 * within {@code [0, maxBackoff]}, never an overflow or an exception.
 */
final class AdversarialInputsTest {

  private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);
  private static final Duration MS = Duration.ofMillis(1);
  private static final BackoffPolicy BASE =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));

  static Stream<Arguments> rejectedAtConstruction() {
    AdaptiveRestartBudget adaptive = RestartBudget.adaptive("a");
    return Stream.of(
        Arguments.of(
            "minBackoff",
            HUGE.toString(),
            (Executable) () -> BackoffPolicy.exponential(HUGE, HUGE)),
        Arguments.of(
            "maxBackoff", HUGE.toString(), (Executable) () -> BackoffPolicy.exponential(MS, HUGE)),
        Arguments.of(
            "minBackoff",
            "PT-0.000000001S",
            (Executable) () -> BackoffPolicy.exponential(Duration.ofNanos(-1), MS)),
        Arguments.of("resetAfter", HUGE.toString(), (Executable) () -> BASE.withResetAfter(HUGE)),
        Arguments.of(
            "maxRetryAfter", HUGE.toString(), (Executable) () -> BASE.withMaxRetryAfter(HUGE)),
        Arguments.of(
            "maxRetryAfter",
            "PT-1S",
            (Executable) () -> BASE.withMaxRetryAfter(Duration.ofSeconds(-1))),
        Arguments.of("multiplier", "-0.0", (Executable) () -> BASE.withMultiplier(-0.0)),
        Arguments.of(
            "multiplier",
            String.valueOf(Math.nextDown(1.0)),
            (Executable) () -> BASE.withMultiplier(Math.nextDown(1.0))),
        Arguments.of(
            "multiplier",
            "-Infinity",
            (Executable) () -> BASE.withMultiplier(Double.NEGATIVE_INFINITY)),
        Arguments.of(
            "maxRestarts",
            String.valueOf(Integer.MIN_VALUE),
            (Executable) () -> BASE.withMaxRestarts(Integer.MIN_VALUE)),
        Arguments.of(
            "stashCapacity",
            String.valueOf(Integer.MIN_VALUE),
            (Executable) () -> BASE.withStashCapacity(Integer.MIN_VALUE)),
        Arguments.of(
            "afterFailures",
            String.valueOf(Integer.MIN_VALUE),
            (Executable)
                () -> BASE.withCriticalLogLevel(org.slf4j.event.Level.ERROR, Integer.MIN_VALUE)),
        Arguments.of("period", HUGE.toString(), (Executable) () -> RestartBudget.of("db", 1, HUGE)),
        Arguments.of(
            "period",
            "PT-1S",
            (Executable) () -> RestartBudget.of("db", 1, Duration.ofSeconds(-1))),
        Arguments.of(
            "permits",
            String.valueOf(Integer.MIN_VALUE),
            (Executable) () -> RestartBudget.of("db", Integer.MIN_VALUE, Duration.ofSeconds(1))),
        Arguments.of(
            "burst",
            String.valueOf(Integer.MIN_VALUE),
            (Executable)
                () ->
                    RestartBudget.of("db", 1, Duration.ofSeconds(1)).withBurst(Integer.MIN_VALUE)),
        Arguments.of("probation", HUGE.toString(), (Executable) () -> adaptive.withProbation(HUGE)),
        Arguments.of(
            "probation",
            "PT0.000999999S",
            (Executable) () -> adaptive.withProbation(Duration.ofNanos(999_999))),
        Arguments.of("period", HUGE.toString(), (Executable) () -> adaptive.withMaxRate(1, HUGE)),
        Arguments.of(
            "period", HUGE.toString(), (Executable) () -> adaptive.withInitialRate(1, HUGE)),
        Arguments.of(
            "holdAfter",
            String.valueOf(Integer.MIN_VALUE),
            (Executable) () -> adaptive.withHoldAfter(Integer.MIN_VALUE)),
        Arguments.of("attempt", "0", (Executable) () -> new Jitter.Step(0, MS, MS, MS, MS)),
        Arguments.of(
            "attempt",
            String.valueOf(Integer.MIN_VALUE),
            (Executable) () -> new Jitter.Step(Integer.MIN_VALUE, MS, MS, MS, MS)));
  }

  @ParameterizedTest(name = "{0} = {1}")
  @MethodSource("rejectedAtConstruction")
  void anExtremeValueIsRejectedAtConstructionNamingTheParameterAndTheValue(
      String parameter, String value, Executable construction) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construction);
    assertTrue(
        e.getMessage().startsWith(parameter + " must be "),
        () -> "names " + parameter + ": " + e.getMessage());
    assertTrue(
        e.getMessage().endsWith("but was " + value), () -> "shows the value: " + e.getMessage());
  }

  @Test
  void nullsAreRejectedNamingTheParameter() {
    assertEquals(
        "types must not be null",
        assertThrows(
                NullPointerException.class,
                () -> BASE.withRestartOn((Class<? extends Throwable>[]) null))
            .getMessage());
    assertEquals(
        "types[1] must not be null",
        assertThrows(NullPointerException.class, () -> BASE.withStopOn(IOException.class, null))
            .getMessage());
  }

  @Test
  void emptyClassListsMeanNoRule() {
    BackoffPolicy p = BASE.withStopOn().withRestartOn();
    assertEquals(List.of(), p.getStopOn());
    assertEquals(List.of(), p.getRestartOn());
    assertFalse(p.isPermanent(new Error("any")));
    assertEquals(BASE, p);
  }

  // ------------------------------------------------------------ a stop rule that breaks

  /** Thrown by a stop rule that has a bug; not a RuntimeException. */
  static final class RuleBug extends Error {
    RuleBug() {
      super("bug in the rule", null, false, false);
    }
  }

  @Test
  void aStopPredicateThatThrowsAnErrorCountsAsAMatchAndIsKeptAsSuppressed() {
    RuleBug bug = new RuleBug();
    BackoffPolicy p =
        BASE.withStopOn(
            t -> {
              throw bug;
            });
    IOException failure = new IOException("the failure");
    assertTrue(p.isPermanent(failure));
    assertSame(bug, failure.getSuppressed()[0]);
  }

  @Test
  void aStopPredicateThatSneaksACheckedExceptionCountsAsAMatch() {
    IOException bug = new IOException("checked, thrown sneakily by the rule");
    BackoffPolicy p = BASE.withStopOn(t -> AdversarialInputsTest.<RuntimeException>sneak(bug));
    IllegalStateException failure = new IllegalStateException("the failure");
    assertTrue(p.isPermanent(failure));
    assertSame(bug, failure.getSuppressed()[0]);
  }

  @Test
  void aStopPredicateThatThrowsAFatalErrorIsNotCaught() {
    StackOverflowError fatal = new StackOverflowError();
    BackoffPolicy p =
        BASE.withStopOn(
            t -> {
              throw fatal;
            });
    assertSame(
        fatal, assertThrows(StackOverflowError.class, () -> p.isPermanent(new IOException())));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> boolean sneak(Throwable t) throws E {
    throw (E) t;
  }

  // ------------------------------------------------------------ schedules

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

  // ------------------------------------------------------------ configuration

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "multiplier = NaN | multiplier: | NaN",
        "multiplier = Infinity | multiplier: | Infinity",
        "multiplier = 1e400 | multiplier: | Infinity",
        "min-backoff = -5ms | min-backoff: | -5ms",
        "min-backoff = 9999999999999999999999d | min-backoff: | 9999999999999999999999d",
        "reset-after = -1s | reset-after: | -1s",
        "max-retry-after = 181d | max-retry-after: | 181d",
        "random-seed = 9223372036854775808 | random-seed: | 9223372036854775808",
        "random-seed = -9223372036854775809 | random-seed: | -9223372036854775809",
        "stash-capacity = 2147483648 | stash-capacity: | 2147483648",
        "stop-on = [null] | stop-on: | null",
        "critical-log-level-after = -3 | critical-log-level-after: | -3",
      })
  void aBadValueInConfigurationNamesTheKeyPathAndTheValue(String line, String key, String value) {
    String path = "my-service.worker-backoff";
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                BackoffPolicy.fromConfig(
                    ConfigFactory.parseString(path + " { " + line + " }"), path));
    assertTrue(e.getMessage().startsWith(path + "." + key + " "), e::getMessage);
    assertTrue(e.getMessage().contains(value), e::getMessage);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "permits = 0, period = 1s | permits: | 0",
        "permits = 1, period = 0s | period: | 0s",
        "permits = 1, period = -1s | period: | -1s",
        "permits = 1, period = 5ms | period: | 5ms",
        "permits = 1, period = 181d | period: | 181d",
        "permits = 1, period = 1s, burst = 0 | burst: | 0",
        "mode = adaptive, probation = 0s | probation: | 0s",
        "mode = adaptive, hold-after = 0 | hold-after: | 0",
        "mode = adaptive, permits = 0, period = 1s | permits: | 0",
      })
  void aBadBudgetInConfigurationNamesTheKeyPathAndTheValue(String line, String key, String value) {
    String path = "my-service.worker-backoff";
    String conf = "supervision-backoff.budgets.db { " + line + " }\n" + path + " { budget = db }";
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BackoffPolicy.fromConfig(ConfigFactory.parseString(conf), path));
    assertTrue(
        e.getMessage().startsWith("supervision-backoff.budgets.db." + key + " "), e::getMessage);
    assertTrue(e.getMessage().contains(value), e::getMessage);
  }

  @Test
  void aBadPathOrANullConfigIsRejected() {
    assertEquals(
        "root must not be null",
        assertThrows(NullPointerException.class, () -> BackoffPolicy.fromConfig(null, "a"))
            .getMessage());
    assertEquals(
        "path must not be null",
        assertThrows(
                NullPointerException.class,
                () -> BackoffPolicy.fromConfig(ConfigFactory.empty(), null))
            .getMessage());
    for (String path : List.of("", "a..b", ".")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> BackoffPolicy.fromConfig(ConfigFactory.empty(), path));
      assertTrue(
          e.getMessage().startsWith("\"" + path + "\" is not a valid config path"), e::getMessage);
    }
  }
}
