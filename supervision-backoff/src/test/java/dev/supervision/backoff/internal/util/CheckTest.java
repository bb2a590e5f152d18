package dev.supervision.backoff.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The library's one argument-check format, and the saturated conversion to nanoseconds. */
final class CheckTest {

  @Test
  void aBrokenRuleNamesTheParameterTheRuleAndTheValue() {
    ParameterException e =
        assertThrows(ParameterException.class, () -> Check.argument(false, "burst", ">= 1", 0));
    assertEquals("burst must be >= 1 but was 0", e.getMessage());
    assertEquals("burst", e.parameter());
    Check.argument(true, "burst", ">= 1", 1);
  }

  @Test
  void nullsAndDurationsThatAreNotPositiveAreRejectedNamingTheParameter() {
    assertEquals(
        "slice must not be null",
        assertThrows(NullPointerException.class, () -> Check.positive(null, "slice")).getMessage());
    assertEquals(
        "slice must be > 0 but was PT0S",
        assertThrows(ParameterException.class, () -> Check.positive(Duration.ZERO, "slice"))
            .getMessage());
    assertEquals(
        "slice must be > 0 but was PT-1S",
        assertThrows(
                ParameterException.class, () -> Check.positive(Duration.ofSeconds(-1), "slice"))
            .getMessage());
    Duration one = Duration.ofNanos(1);
    assertSame(one, Check.positive(one, "slice"));
  }

  @Test
  void delaysCountsAndNamesHaveTheirRulesInTheSameFormat() {
    assertEquals(
        "maxBackoff must be <= PT4320H but was PT4321H",
        assertThrows(
                ParameterException.class, () -> Check.delay(Duration.ofHours(4321), "maxBackoff"))
            .getMessage());
    assertSame(Check.MAX_DELAY, Check.delay(Check.MAX_DELAY, "maxBackoff"));
    assertEquals(
        "burst must be >= 1 but was 0",
        assertThrows(ParameterException.class, () -> Check.atLeast(0, 1, "burst")).getMessage());
    assertEquals(0, Check.atLeast(0, 0, "stashCapacity"));
    assertEquals(
        "name must be non-blank but was \" \"",
        assertThrows(ParameterException.class, () -> Check.nonBlank(" ", "name")).getMessage());
    assertEquals(
        "name must not be null",
        assertThrows(NullPointerException.class, () -> Check.nonBlank(null, "name")).getMessage());
  }

  @Test
  void saturatedNanosSaturatesAtBothEnds() {
    assertEquals(1_000_000L, Check.saturatedNanos(Duration.ofMillis(1)));
    assertEquals(Long.MAX_VALUE, Check.saturatedNanos(Duration.ofSeconds(Long.MAX_VALUE)));
    assertEquals(Long.MIN_VALUE, Check.saturatedNanos(Duration.ofSeconds(Long.MIN_VALUE)));
    assertEquals(Long.MAX_VALUE, Check.saturatedNanos(Duration.ofNanos(Long.MAX_VALUE)));
  }
}
