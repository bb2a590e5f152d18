package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.internal.util.ParameterException;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.event.Level;

/**
 * Every rejected value names its parameter in the exception itself, not only in the message, so
 * that the configuration reader can blame the right key however the message is worded.
 */
final class ValidationErrorsCarryTheirParameterTest {

  private static final Duration S1 = Duration.ofSeconds(1);
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
}
