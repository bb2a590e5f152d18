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
 * An adaptive restart budget is an immutable value: it has its defaults, every setting is validated
 * with its name and value, is kept by every other {@code withX}, and takes part in equality, hashing
 * and printing. (That it has no burst is a matter for the compiler.)
 */
final class AdaptiveBudgetValueTest {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static void rejects(String message, Executable call) {
    assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
  }

  @Test
  void adaptive_hasItsDefaults() {
    RestartBudget.Adaptive a = RestartBudget.adaptive("learn");
    assertEquals(Optional.empty(), a.getMaxRate());
    assertFalse(a.isClusterWide());
    assertEquals("learn", a.getName());
    assertEquals(Duration.ofMillis(100), a.getProbation());
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
  void everySettingIsKeptByTheOthers() {
    RestartBudget.Adaptive a =
        RestartBudget.adaptive("learn")
            .withProbation(Duration.ofMillis(250))
            .withMaxRate(40, Duration.ofMillis(500))
            .withInitialRate(30, Duration.ofSeconds(2))
            .withHoldAfter(3)
            .clusterWide();
    assertEquals(Duration.ofMillis(250), a.getProbation());
    assertEquals(
        Optional.of(new RestartBudget.Adaptive.MaxRate(40, Duration.ofMillis(500))),
        a.getMaxRate());
    assertEquals(15.0, a.getInitialRate(), 0.0);
    assertEquals(3, a.getHoldAfter());
    assertTrue(a.isClusterWide());
    // and in the other order
    RestartBudget.Adaptive b =
        RestartBudget.adaptive("learn")
            .clusterWide()
            .withHoldAfter(3)
            .withInitialRate(30, Duration.ofSeconds(2))
            .withMaxRate(40, Duration.ofMillis(500))
            .withProbation(Duration.ofMillis(250));
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertEquals(a.toString(), b.toString());
  }

  @Test
  void userCodeMayHoldAnAdaptiveBudgetAsARestartBudget() {
    RestartBudget b = RestartBudget.adaptive("db").withMaxRate(200, SECOND);
    assertEquals(RestartBudget.adaptive("db").withMaxRate(200, SECOND), b);
    assertTrue(b.clusterWide() instanceof RestartBudget.Adaptive a && a.isClusterWide());
  }

  @Test
  void withProbation_acceptsOneMillisecondToOneMinute_andRejectsTheRest() {
    RestartBudget.Adaptive a = RestartBudget.adaptive("p");
    assertEquals(Duration.ofMillis(1), a.withProbation(Duration.ofMillis(1)).getProbation());
    assertEquals(Duration.ofMinutes(1), a.withProbation(Duration.ofMinutes(1)).getProbation());
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
    RestartBudget.Adaptive a = RestartBudget.adaptive("m");
    rejects("permits must be >= 1 but was 0", () -> a.withMaxRate(0, SECOND));
    rejects("period must be > 0 but was PT0S", () -> a.withMaxRate(1, Duration.ZERO));
    rejects(
        "period must be >= PT0.01S but was PT0.009S", () -> a.withMaxRate(1, Duration.ofMillis(9)));
    assertEquals(
        "period must not be null",
        assertThrows(NullPointerException.class, () -> a.withMaxRate(1, null)).getMessage());
    assertEquals(
        Optional.of(new RestartBudget.Adaptive.MaxRate(1, Duration.ofMillis(10))),
        a.withMaxRate(1, Duration.ofMillis(10)).getMaxRate());
    // the ceiling's own constructor applies the same rules
    rejects(
        "permits must be >= 1 but was -1", () -> new RestartBudget.Adaptive.MaxRate(-1, SECOND));
  }

  @Test
  void withInitialRate_needsAtLeastFivePerSecond_andLeavesTheCeiling() {
    RestartBudget.Adaptive a = RestartBudget.adaptive("i");
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
    assertEquals(Optional.empty(), a.withInitialRate(50, SECOND).getMaxRate());
  }

  @Test
  void withHoldAfter_needsAtLeastOneFailure() {
    RestartBudget.Adaptive a = RestartBudget.adaptive("h");
    assertEquals(1, a.withHoldAfter(1).getHoldAfter());
    rejects("holdAfter must be >= 1 but was 0", () -> a.withHoldAfter(0));
  }

  @Test
  void equalityCoversEverySetting() {
    RestartBudget.Adaptive a = RestartBudget.adaptive("db");
    RestartBudget[] others = {
      RestartBudget.adaptive("other"),
      a.withProbation(Duration.ofMillis(200)),
      a.withMaxRate(20, SECOND),
      a.withMaxRate(20, SECOND).withMaxRate(40, Duration.ofSeconds(2)),
      a.withInitialRate(20, SECOND),
      a.withHoldAfter(2),
      a.clusterWide(),
    };
    assertEquals(a, RestartBudget.adaptive("db"));
    assertEquals(a.hashCode(), RestartBudget.adaptive("db").hashCode());
    assertNotEquals(a, null);
    for (RestartBudget o : others) {
      assertNotEquals(a, o, o.toString());
      assertNotEquals(o, a, o.toString());
      assertNotEquals(a.hashCode(), o.hashCode(), o.toString());
    }
  }

  @Test
  void sameLimitsIgnoresOnlyTheName() {
    RestartBudget.Adaptive a = RestartBudget.adaptive("db");
    assertTrue(a.sameLimitsAs(RestartBudget.adaptive("cache")));
    assertFalse(a.sameLimitsAs(a.withHoldAfter(3)));
    assertFalse(a.sameLimitsAs(a.withProbation(Duration.ofMillis(300))));
    assertFalse(a.sameLimitsAs(a.withInitialRate(50, SECOND)));
    assertFalse(a.sameLimitsAs(a.withMaxRate(500, SECOND)));
    assertFalse(a.sameLimitsAs(a.clusterWide()));
  }

  @Test
  void toStringShowsEverySetting() {
    assertEquals(
        "RestartBudget{name=learn, adaptive, probation=PT0.1S, initialRate=100.0/s, holdAfter=10}",
        RestartBudget.adaptive("learn").toString());
    assertEquals(
        "RestartBudget{name=learn, adaptive, probation=PT0.25S, initialRate=20.0/s, holdAfter=3,"
            + " maxRate=50 per PT2S, cluster-wide}",
        RestartBudget.adaptive("learn")
            .withProbation(Duration.ofMillis(250))
            .withInitialRate(20, SECOND)
            .withHoldAfter(3)
            .withMaxRate(50, Duration.ofSeconds(2))
            .clusterWide()
            .toString());
  }
}
