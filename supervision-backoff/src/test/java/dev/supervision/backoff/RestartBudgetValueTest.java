package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A restart budget is an immutable value: every setting is validated with its name and value, is
 * kept by every {@code withX}, and takes part in equality, hashing and printing.
 */
final class RestartBudgetValueTest {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static void rejects(String message, Executable call) {
    assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
  }

  @Test
  void aFixedBudgetKeepsItsSettings_andHasNoAdaptiveOnes() {
    RestartBudget b = RestartBudget.of("db", 35, Duration.ofMillis(700));
    assertEquals("db", b.getName());
    assertEquals(35, b.getPermits());
    assertEquals(Duration.ofMillis(700), b.getPeriod());
    assertEquals(3, b.getBurst()); // max(1, 35 / 10)
    assertFalse(b.isClusterWide());
    assertFalse(b.isAdaptive());
    assertTrue(b.hasMaxRate());
    assertEquals(Optional.empty(), b.getProbation());
    assertEquals(0.0, b.getInitialRate(), 0.0);
    assertEquals(0, b.getHoldAfter());
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
  void withBurstAndClusterWideKeepEveryOtherSetting() {
    RestartBudget b = RestartBudget.of("db", 50, SECOND).withBurst(7).clusterWide();
    assertEquals("db", b.getName());
    assertEquals(50, b.getPermits());
    assertEquals(SECOND, b.getPeriod());
    assertEquals(7, b.getBurst());
    assertTrue(b.isClusterWide());
    assertTrue(b.withBurst(9).isClusterWide());
    assertEquals(9, b.withBurst(9).getBurst());
    RestartBudget a = RestartBudget.adaptive("ad").withHoldAfter(4).clusterWide().withBurst(2);
    assertTrue(a.isAdaptive());
    assertTrue(a.isClusterWide());
    assertEquals(4, a.getHoldAfter());
    assertEquals(2, a.getBurst());
  }

  @Test
  void anAdaptiveBudgetHasItsDefaults() {
    RestartBudget a = RestartBudget.adaptive("learn");
    assertTrue(a.isAdaptive());
    assertFalse(a.hasMaxRate());
    assertFalse(a.isClusterWide());
    assertEquals("learn", a.getName());
    assertEquals(Integer.MAX_VALUE, a.getPermits());
    assertEquals(SECOND, a.getPeriod());
    assertEquals(1, a.getBurst());
    assertEquals(Optional.of(Duration.ofMillis(100)), a.getProbation());
    assertEquals(100.0, a.getInitialRate(), 0.0);
    assertEquals(10, a.getHoldAfter());
  }

  @Test
  void adaptive_rejectsANullOrBlankName() {
    assertEquals(
        "name must not be null",
        assertThrows(NullPointerException.class, () -> RestartBudget.adaptive(null)).getMessage());
    rejects("name must be non-blank but was \"\t\"", () -> RestartBudget.adaptive("\t"));
  }

  @Test
  void everyAdaptiveSettingIsKeptByTheOthers() {
    RestartBudget a =
        RestartBudget.adaptive("learn")
            .withProbation(Duration.ofMillis(250))
            .withMaxRate(40, Duration.ofMillis(500))
            .withInitialRate(30, Duration.ofSeconds(2))
            .withHoldAfter(3);
    assertEquals(Optional.of(Duration.ofMillis(250)), a.getProbation());
    assertTrue(a.hasMaxRate());
    assertEquals(40, a.getPermits());
    assertEquals(Duration.ofMillis(500), a.getPeriod());
    assertEquals(4, a.getBurst()); // max(1, 40 / 10)
    assertEquals(15.0, a.getInitialRate(), 0.0);
    assertEquals(3, a.getHoldAfter());
    // and in the other order
    RestartBudget b =
        RestartBudget.adaptive("learn")
            .withHoldAfter(3)
            .withInitialRate(30, Duration.ofSeconds(2))
            .withMaxRate(40, Duration.ofMillis(500))
            .withProbation(Duration.ofMillis(250));
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertEquals(a.toString(), b.toString());
    // a small ceiling still has a burst of one
    assertEquals(1, RestartBudget.adaptive("x").withMaxRate(9, SECOND).getBurst());
  }

  @Test
  void withProbation_acceptsOneMillisecondToOneMinute_andRejectsTheRest() {
    RestartBudget a = RestartBudget.adaptive("p");
    assertEquals(
        Optional.of(Duration.ofMillis(1)), a.withProbation(Duration.ofMillis(1)).getProbation());
    assertEquals(
        Optional.of(Duration.ofMinutes(1)), a.withProbation(Duration.ofMinutes(1)).getProbation());
    rejects(
        "probation must be between 1 ms and 1 min but was PT0.000999999S",
        () -> a.withProbation(Duration.ofNanos(999_999)));
    rejects(
        "probation must be between 1 ms and 1 min but was PT1M0.001S",
        () -> a.withProbation(Duration.ofMinutes(1).plusMillis(1)));
    rejects("probation must be > 0 but was PT0S", () -> a.withProbation(Duration.ZERO));
    assertEquals(
        "probation must not be null",
        assertThrows(NullPointerException.class, () -> a.withProbation(null)).getMessage());
  }

  @Test
  void withMaxRate_validatesPermitsAndPeriod() {
    RestartBudget a = RestartBudget.adaptive("m");
    rejects("permits must be >= 1 but was 0", () -> a.withMaxRate(0, SECOND));
    rejects("period must be > 0 but was PT0S", () -> a.withMaxRate(1, Duration.ZERO));
    rejects(
        "period must be >= PT0.01S but was PT0.009S", () -> a.withMaxRate(1, Duration.ofMillis(9)));
    assertEquals(Duration.ofMillis(10), a.withMaxRate(1, Duration.ofMillis(10)).getPeriod());
    assertEquals(1, a.withMaxRate(1, Duration.ofMillis(10)).getPermits());
  }

  @Test
  void withInitialRate_needsAtLeastFivePerSecond() {
    RestartBudget a = RestartBudget.adaptive("i");
    assertEquals(5.0, a.withInitialRate(5, SECOND).getInitialRate(), 0.0);
    assertEquals(5.0, a.withInitialRate(1, Duration.ofMillis(200)).getInitialRate(), 0.0);
    assertEquals(250.0, a.withInitialRate(25, Duration.ofMillis(100)).getInitialRate(), 0.0);
    rejects(
        "initialRate must be >= 5 per second but was 4.0 per second",
        () -> a.withInitialRate(4, SECOND));
    rejects("permits must be >= 1 but was 0", () -> a.withInitialRate(0, SECOND));
    rejects("period must be > 0 but was PT-1S", () -> a.withInitialRate(10, SECOND.negated()));
    rejects(
        "period must be >= PT0.01S but was PT0.005S",
        () -> a.withInitialRate(10, Duration.ofMillis(5)));
    // the initial rate does not touch the ceiling
    RestartBudget b = a.withInitialRate(50, SECOND);
    assertFalse(b.hasMaxRate());
    assertEquals(Integer.MAX_VALUE, b.getPermits());
    assertEquals(SECOND, b.getPeriod());
    assertEquals(1, b.getBurst());
  }

  @Test
  void withHoldAfter_needsAtLeastOneFailure() {
    RestartBudget a = RestartBudget.adaptive("h");
    assertEquals(1, a.withHoldAfter(1).getHoldAfter());
    rejects("holdAfter must be >= 1 but was 0", () -> a.withHoldAfter(0));
  }

  @Test
  void adaptiveSettingsOnAFixedBudgetAreAnError_namingTheSettingAndTheBudget() {
    RestartBudget fixed = RestartBudget.of("orders", 20, SECOND);
    String tail = " applies to adaptive budgets only, but orders is a fixed budget of 20 per PT1S";
    assertEquals(
        "probation" + tail,
        assertThrows(IllegalStateException.class, () -> fixed.withProbation(Duration.ofMillis(100)))
            .getMessage());
    assertEquals(
        "maxRate" + tail,
        assertThrows(IllegalStateException.class, () -> fixed.withMaxRate(10, SECOND))
            .getMessage());
    assertEquals(
        "initialRate" + tail,
        assertThrows(IllegalStateException.class, () -> fixed.withInitialRate(10, SECOND))
            .getMessage());
    assertEquals(
        "holdAfter" + tail,
        assertThrows(IllegalStateException.class, () -> fixed.withHoldAfter(3)).getMessage());
  }

  @Test
  void equalityCoversEverySetting() {
    RestartBudget b = RestartBudget.of("db", 20, SECOND);
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
    RestartBudget a = RestartBudget.adaptive("db");
    RestartBudget[] adaptives = {
      a.withProbation(Duration.ofMillis(200)),
      a.withMaxRate(20, SECOND),
      a.withInitialRate(20, SECOND),
      a.withHoldAfter(2),
      a.clusterWide(),
    };
    assertEquals(a, RestartBudget.adaptive("db"));
    assertEquals(a.hashCode(), RestartBudget.adaptive("db").hashCode());
    for (RestartBudget o : adaptives) {
      assertNotEquals(a, o, o.toString());
      assertNotEquals(a.hashCode(), o.hashCode(), o.toString());
    }
    // an adaptive budget with a ceiling is not the fixed budget of the same rate
    RestartBudget ceiling = a.withMaxRate(20, SECOND).withBurst(2);
    assertNotEquals(ceiling, RestartBudget.of("db", 20, SECOND).withBurst(2));
    assertNotEquals(RestartBudget.of("db", 20, SECOND).withBurst(2), ceiling);
  }

  @Test
  void sameLimitsIgnoresOnlyTheName() {
    RestartBudget b = RestartBudget.of("db", 20, SECOND);
    assertTrue(b.sameLimitsAs(RestartBudget.of("cache", 20, SECOND)));
    assertFalse(b.sameLimitsAs(RestartBudget.of("db", 21, SECOND)));
    assertFalse(b.sameLimitsAs(RestartBudget.of("db", 20, Duration.ofSeconds(2))));
    assertFalse(b.sameLimitsAs(b.withBurst(5)));
    assertFalse(b.sameLimitsAs(b.clusterWide()));
    RestartBudget a = RestartBudget.adaptive("db");
    assertTrue(a.sameLimitsAs(RestartBudget.adaptive("cache")));
    assertFalse(a.sameLimitsAs(a.withHoldAfter(3)));
    assertFalse(a.sameLimitsAs(a.withProbation(Duration.ofMillis(300))));
  }

  @Test
  void toStringShowsEverySetting() {
    assertEquals(
        "RestartBudget{name=db, permits=20, period=PT1S, burst=4, cluster-wide}",
        RestartBudget.of("db", 20, SECOND).withBurst(4).clusterWide().toString());
    assertEquals(
        "RestartBudget{name=learn, adaptive, probation=PT0.1S, initialRate=100.0/s, holdAfter=10}",
        RestartBudget.adaptive("learn").toString());
    assertEquals(
        "RestartBudget{name=learn, adaptive, probation=PT0.25S, initialRate=20.0/s, holdAfter=3,"
            + " maxRate=50 per PT2S, burst=5, cluster-wide}",
        RestartBudget.adaptive("learn")
            .withProbation(Duration.ofMillis(250))
            .withInitialRate(20, SECOND)
            .withHoldAfter(3)
            .withMaxRate(50, Duration.ofSeconds(2))
            .clusterWide()
            .toString());
  }
}
