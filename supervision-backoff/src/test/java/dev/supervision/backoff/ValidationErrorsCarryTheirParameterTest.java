package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.internal.util.ParameterException;
import java.io.IOException;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.event.Level;

/**
 * Every rejected value names its parameter in the exception itself, not only in the message, so
 * that the configuration reader can blame the right key however the message is worded; and the
 * message names the parameter and the value, also for hostile and extreme values (the largest
 * durations, negative zero, {@code Integer.MIN_VALUE}), which fail at construction like any other.
 */
final class ValidationErrorsCarryTheirParameterTest {

  private static final Duration S1 = Duration.ofSeconds(1);
  private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);
  private static final Duration MS = Duration.ofMillis(1);
  private static final BackoffPolicy BASE = BackoffPolicy.exponential(Duration.ofMillis(100), S1);

  static Stream<Arguments> rejections() {
    return Stream.of(
        Arguments.of("minBackoff", (Executable) () -> BackoffPolicy.exponential(Duration.ZERO, S1)),
        Arguments.of(
            "maxBackoff", (Executable) () -> BackoffPolicy.exponential(S1, Duration.ofMillis(1))),
        Arguments.of(
            "maxBackoff", (Executable) () -> BackoffPolicy.exponential(S1, Duration.ofDays(181))),
        Arguments.of("multiplier", (Executable) () -> BASE.withMultiplier(0.5)),
        Arguments.of("resetAfter", (Executable) () -> BASE.withResetAfter(Duration.ZERO)),
        Arguments.of("maxRestarts", (Executable) () -> BASE.withMaxRestarts(-1)),
        Arguments.of("stashCapacity", (Executable) () -> BASE.withStashCapacity(-1)),
        Arguments.of("maxRetryAfter", (Executable) () -> BASE.withMaxRetryAfter(Duration.ZERO)),
        Arguments.of("afterFailures", (Executable) () -> BASE.withCriticalLogLevel(Level.ERROR, 0)),
        Arguments.of("permits", (Executable) () -> RestartBudget.of("db", 0, S1)),
        Arguments.of("period", (Executable) () -> RestartBudget.of("db", 1, Duration.ofMillis(1))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejections")
  void theExceptionNamesTheParameter(String parameter, Executable call) {
    ParameterException e = assertThrows(ParameterException.class, call);
    assertEquals(parameter, e.parameter());
  }

  static Stream<Arguments> rejectedAtConstruction() {
    RestartBudget.Adaptive adaptive = RestartBudget.adaptive("a");
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
}
