package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A fixed restart budget is an immutable value: every setting is validated with its name and value,
 * is kept by every {@code withX}, and takes part in equality, hashing and printing. (That it has no
 * adaptive setting is a matter for the compiler.)
 */
final class FixedBudgetValueTest {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static void rejects(String message, Executable call) {
    assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
  }

  @Test
  void of_keepsItsSettings_withTheDefaultBurst() {
    RestartBudget.Fixed b = RestartBudget.of("db", 35, Duration.ofMillis(700));
    assertEquals("db", b.getName());
    assertEquals(35, b.getPermits());
    assertEquals(Duration.ofMillis(700), b.getPeriod());
    assertEquals(3, b.getBurst()); // max(1, 35 / 10)
    assertEquals(1, RestartBudget.of("db", 9, SECOND).getBurst()); // at least one
    assertFalse(b.isClusterWide());
  }

  @Test
  void of_acceptsTheBoundaries() {
    assertEquals(
        Duration.ofMillis(10), RestartBudget.of("a", 1, Duration.ofMillis(10)).getPeriod());
    assertEquals(Duration.ofDays(180), RestartBudget.of("a", 1, Duration.ofDays(180)).getPeriod());
    assertEquals(1, RestartBudget.of("a", 1, SECOND).withBurst(1).getBurst());
  }

  @Test
  void of_rejectsAPeriodAbove180Days_andANegativeOne() {
    rejects(
        "period must be <= PT4320H but was PT4320H0.001S",
        () -> RestartBudget.of("a", 1, Duration.ofDays(180).plusMillis(1)));
    rejects("period must be > 0 but was PT-1S", () -> RestartBudget.of("a", 1, SECOND.negated()));
    rejects(
        "period must be >= PT0.01S but was PT0.009999999S",
        () -> RestartBudget.of("a", 1, Duration.ofNanos(9_999_999)));
    assertEquals(
        "period must not be null",
        assertThrows(NullPointerException.class, () -> RestartBudget.of("a", 1, null))
            .getMessage());
  }

  @Test
  void of_rejectsANullOrBlankName_andTooFewPermits() {
    assertEquals(
        "name must not be null",
        assertThrows(NullPointerException.class, () -> RestartBudget.of(null, 1, SECOND))
            .getMessage());
    rejects("name must be non-blank but was \" \"", () -> RestartBudget.of(" ", 1, SECOND));
    rejects("permits must be >= 1 but was 0", () -> RestartBudget.of("a", 0, SECOND));
  }

  @Test
  void withBurst_needsAtLeastOne() {
    rejects("burst must be >= 1 but was 0", () -> RestartBudget.of("a", 1, SECOND).withBurst(0));
  }

  @Test
  void withBurstAndClusterWideKeepEveryOtherSetting() {
    RestartBudget.Fixed b = RestartBudget.of("db", 50, SECOND).withBurst(7).clusterWide();
    assertEquals("db", b.getName());
    assertEquals(50, b.getPermits());
    assertEquals(SECOND, b.getPeriod());
    assertEquals(7, b.getBurst());
    assertTrue(b.isClusterWide());
    assertTrue(b.withBurst(9).isClusterWide());
    assertEquals(9, b.withBurst(9).getBurst());
    // through the interface, clusterWide keeps the kind
    RestartBudget any = RestartBudget.of("db", 50, SECOND).withBurst(7);
    assertEquals(b, any.clusterWide());
  }

  @Test
  void equalityCoversEverySetting() {
    RestartBudget.Fixed b = RestartBudget.of("db", 20, SECOND);
    assertEquals(b, RestartBudget.of("db", 20, SECOND));
    assertEquals(b.hashCode(), RestartBudget.of("db", 20, SECOND).hashCode());
    assertEquals(b, b);
    assertNotEquals(b, "db");
    assertNotEquals(b, null);
    RestartBudget[] others = {
      RestartBudget.of("other", 20, SECOND),
      RestartBudget.of("db", 21, SECOND),
      RestartBudget.of("db", 20, Duration.ofSeconds(2)),
      b.withBurst(3),
      b.clusterWide(),
    };
    for (RestartBudget o : others) {
      assertNotEquals(b, o, o.toString());
      assertNotEquals(o, b, o.toString());
      assertNotEquals(b.hashCode(), o.hashCode(), o.toString());
    }
  }

  @Test
  void aFixedBudgetIsNotTheAdaptiveBudgetOfTheSameCeiling() {
    RestartBudget.Fixed fixed = RestartBudget.of("db", 20, SECOND);
    RestartBudget.Adaptive ceiling = RestartBudget.adaptive("db").withMaxRate(20, SECOND);
    assertNotEquals(ceiling, fixed);
    assertNotEquals(fixed, ceiling);
    assertFalse(fixed.sameLimitsAs(ceiling));
    assertFalse(ceiling.sameLimitsAs(fixed));
    assertFalse(
        RestartBudget.adaptive("db")
            .sameLimitsAs(RestartBudget.of("db", Integer.MAX_VALUE, SECOND).withBurst(1)));
  }

  @Test
  void sameLimitsIgnoresOnlyTheName() {
    RestartBudget.Fixed b = RestartBudget.of("db", 20, SECOND);
    assertTrue(b.sameLimitsAs(RestartBudget.of("cache", 20, SECOND)));
    assertFalse(b.sameLimitsAs(RestartBudget.of("db", 21, SECOND)));
    assertFalse(b.sameLimitsAs(RestartBudget.of("db", 20, Duration.ofSeconds(2))));
    assertFalse(b.sameLimitsAs(b.withBurst(5)));
    assertFalse(b.sameLimitsAs(b.clusterWide()));
    assertEquals(
        "other", assertThrows(NullPointerException.class, () -> b.sameLimitsAs(null)).getMessage());
  }

  @Test
  void toStringShowsEverySetting() {
    assertEquals(
        "RestartBudget{name=db, permits=20, period=PT1S, burst=4, cluster-wide}",
        RestartBudget.of("db", 20, SECOND).withBurst(4).clusterWide().toString());
    assertEquals(
        "RestartBudget{name=orders-db, permits=200, period=PT1S, burst=20}",
        RestartBudget.of("orders-db", 200, SECOND).toString());
  }
}
