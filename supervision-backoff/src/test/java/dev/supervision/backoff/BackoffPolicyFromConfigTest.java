package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.event.Level;

/** BackoffPolicy.fromConfig: every key, the defaults of reference.conf, and every bad value's message. */
final class BackoffPolicyFromConfigTest {

  private static final String PATH = "my-service.worker-backoff";

  private static Config root(String block) {
    return ConfigFactory.parseString(PATH + " {\n" + block + "\n}");
  }

  private static BackoffPolicy read(String block) {
    return BackoffPolicy.fromConfig(root(block), PATH);
  }

  /** Reads the policy block {@code block} next to budget definitions {@code budgets}. */
  private static BackoffPolicy read(String block, String budgets) {
    return BackoffPolicy.fromConfig(
        ConfigFactory.parseString("supervision-backoff.budgets {\n" + budgets + "\n}")
            .withFallback(root(block)),
        PATH);
  }

  @Test
  void readsTheClassicOptionsAndHerdLogging() {
    BackoffPolicy p =
        read("min-backoff = 1s\nrestart-on-stop = on\nmanual-reset = yes\naggregate-logs = off");
    assertTrue(p.isRestartOnStop());
    assertTrue(p.isManualReset());
    assertFalse(p.isAggregatedLogging());
    BackoffPolicy defaults = read("min-backoff = 1s");
    assertFalse(defaults.isRestartOnStop());
    assertFalse(defaults.isManualReset());
    assertEquals(
        BackoffPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(10)), defaults);
    assertTrue(read("min-backoff = 1s\naggregate-logs = on").isAggregatedLogging());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> read("restart-on-stop = maybe"));
    assertEquals(
        PATH + ".restart-on-stop: \"maybe\" is not one of on, off, true, false, yes, no",
        e.getMessage());
  }

  @Test
  void readsEveryKey() {
    BackoffPolicy p =
        read(
            String.join(
                "\n",
                "min-backoff = 250ms",
                "max-backoff = 20s",
                "multiplier = 3.5",
                "jitter = decorrelated",
                "reset-after = 45s",
                "max-restarts = 7",
                "stash-capacity = 12",
                "stop-children = off",
                "stop-on = [\"java.lang.IllegalArgumentException\"]",
                "restart-on = [\"java.io.IOException\", \"java.util.concurrent.TimeoutException\"]",
                "random-seed = 42",
                "max-retry-after = 5m",
                "log-level = info",
                "critical-log-level = warn",
                "critical-log-level-after = 3",
                "logging-enabled = off",
                "publish-events = on",
                "budget = orders-db"),
            "orders-db { permits = 50, period = 2s, burst = 7, cluster-wide = on }");
    assertEquals(Duration.ofMillis(250), p.getMinBackoff());
    assertEquals(Duration.ofSeconds(20), p.getMaxBackoff());
    assertEquals(3.5, p.getMultiplier());
    assertEquals(Jitter.decorrelated(), p.getJitter());
    assertEquals(Duration.ofSeconds(45), p.getResetAfter());
    assertEquals(OptionalInt.of(7), p.getMaxRestarts());
    assertEquals(OptionalInt.of(12), p.getStashCapacitySetting());
    assertFalse(p.isStopChildren());
    assertEquals(java.util.List.of(IllegalArgumentException.class), p.getStopOn());
    assertEquals(
        java.util.List.of(java.io.IOException.class, java.util.concurrent.TimeoutException.class),
        p.getRestartOn());
    assertEquals(OptionalLong.of(42), p.getRandomSeed());
    assertEquals(Duration.ofMinutes(5), p.getMaxRetryAfter());
    assertEquals(Level.INFO, p.getLogLevel());
    assertEquals(Level.WARN, p.getCriticalLogLevel());
    assertEquals(3, p.getCriticalLogLevelAfter());
    assertFalse(p.isLoggingEnabled());
    assertTrue(p.isEventStreamPublishing());
    assertEquals(
        Optional.of(
            RestartBudget.of("orders-db", 50, Duration.ofSeconds(2)).withBurst(7).clusterWide()),
        p.getBudget());
  }

  @ParameterizedTest
  @CsvSource({"full", "equal", "decorrelated", "none", "FULL"})
  void readsEveryJitter(String name) {
    Jitter expected =
        switch (name.toLowerCase()) {
          case "full" -> Jitter.full();
          case "equal" -> Jitter.equal();
          case "decorrelated" -> Jitter.decorrelated();
          default -> Jitter.none();
        };
    assertEquals(expected, read("jitter = " + name).getJitter());
  }

  @ParameterizedTest
  @CsvSource({
    "error, ERROR",
    "warn, WARN",
    "info, INFO",
    "debug, DEBUG",
    "trace, TRACE",
    "Debug, DEBUG"
  })
  void readsEveryLogLevel(String word, Level level) {
    assertEquals(level, read("log-level = " + word).getLogLevel());
    assertEquals(level, read("critical-log-level = " + word).getCriticalLogLevel());
  }

  @Test
  void offMeansUnlimitedUnseededAndNeverCritical() {
    BackoffPolicy p =
        read(
            "max-restarts = off\nrandom-seed = off\ncritical-log-level-after = off\nbudget = null");
    assertEquals(OptionalInt.empty(), p.getMaxRestarts());
    assertEquals(OptionalLong.empty(), p.getRandomSeed());
    assertEquals(Integer.MAX_VALUE, p.getCriticalLogLevelAfter());
    assertEquals(Optional.empty(), p.getBudget());
  }

  @Test
  void budgetDefaultsAreAutoBurstAndLocal() {
    RestartBudget.Fixed expected = RestartBudget.of("db", 200, Duration.ofSeconds(1));
    assertEquals(
        Optional.of(expected),
        read("budget = db", "db { permits = 200, period = 1s }").getBudget());
    assertEquals(20, expected.getBurst());
    assertFalse(expected.isClusterWide());
  }

  @Test
  void anAdaptiveBudgetTakesItsProbationHoldThresholdAndOptionalCeilingFromConfig() {
    assertEquals(
        Optional.of(RestartBudget.adaptive("db")),
        read("budget = db", "db { mode = adaptive }").getBudget());
    assertEquals(
        Optional.of(
            RestartBudget.adaptive("db")
                .withProbation(Duration.ofMillis(250))
                .withHoldAfter(3)
                .withMaxRate(500, Duration.ofSeconds(1))),
        read(
                "budget = db",
                "db { mode = adaptive, probation = 250ms, hold-after = 3, permits = 500, period = 1s }")
            .getBudget());
  }

  @Test
  void budgetNamesWithDotsAreQuoted() {
    assertEquals(
        "orders.db",
        read("budget = \"orders.db\"", "\"orders.db\" { permits = 1, period = 1s }")
            .getBudget()
            .orElseThrow()
            .getName());
  }

  @Test
  void zeroRestartsIsAllowed() {
    assertEquals(OptionalInt.of(0), read("max-restarts = 0").getMaxRestarts());
  }

  @Test
  void resetAfterAutoIsTheMeanOfMinAndMax() {
    assertEquals(
        Duration.ofMillis(1100),
        read("min-backoff = 200ms\nmax-backoff = 2s\nreset-after = auto").getResetAfter());
  }

  @Test
  void emptyBlockGivesTheDocumentedDefaultsOfReferenceConf() {
    BackoffPolicy expected =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10));
    BackoffPolicy p = read("");
    assertEquals(expected, p);
    assertEquals(Duration.ofMillis(5050), p.getResetAfter());
    assertFalse(p.isEventStreamPublishing());
    assertEquals(Optional.empty(), p.getBudget());
  }

  @Test
  void defaultsAreReadFromReferenceConfNotFromCode() {
    Config reference =
        ConfigFactory.defaultReference().getConfig("supervision-backoff.default-policy");
    BackoffPolicy p = read("");
    assertEquals(reference.getDuration("min-backoff"), p.getMinBackoff());
    assertEquals(reference.getDuration("max-backoff"), p.getMaxBackoff());
    assertEquals(reference.getDouble("multiplier"), p.getMultiplier());
    assertEquals(reference.getString("jitter"), p.getJitter().toString());
    assertEquals("auto", reference.getString("reset-after"));
    assertEquals("off", reference.getString("max-restarts"));
    assertEquals("auto", reference.getString("stash-capacity"));
    assertEquals(OptionalInt.empty(), p.getStashCapacitySetting());
    assertEquals(reference.getBoolean("stop-children"), p.isStopChildren());
    assertEquals(java.util.List.of(), reference.getStringList("stop-on"));
    assertEquals(java.util.List.of(), p.getStopOn());
    assertEquals(java.util.List.of(), reference.getStringList("restart-on"));
    assertEquals(java.util.List.of(), p.getRestartOn());
    assertEquals("off", reference.getString("random-seed"));
    assertEquals(reference.getDuration("max-retry-after"), p.getMaxRetryAfter());
    assertEquals(reference.getString("log-level").toUpperCase(), p.getLogLevel().name());
    assertEquals(
        reference.getString("critical-log-level").toUpperCase(), p.getCriticalLogLevel().name());
    assertEquals("off", reference.getString("critical-log-level-after"));
    assertEquals(reference.getBoolean("logging-enabled"), p.isLoggingEnabled());
    assertEquals(reference.getBoolean("publish-events"), p.isEventStreamPublishing());
    assertTrue(reference.getIsNull("budget"));
  }

  @Test
  void referenceConfHasExactlyTheKeysTheParserReads() {
    Config reference =
        ConfigFactory.defaultReference().getConfig("supervision-backoff.default-policy");
    assertEquals(
        new java.util.TreeSet<>(PolicySetting.KEYS),
        new java.util.TreeSet<>(reference.root().keySet()));
    Config budgetDefaults =
        ConfigFactory.defaultReference()
            .getConfig(dev.supervision.backoff.internal.policy.PolicyConfig.BUDGET_DEFAULTS_PATH);
    assertTrue(
        BudgetSetting.KEYS.containsAll(budgetDefaults.root().keySet()),
        budgetDefaults.root().keySet().toString());
  }

  @Test
  void everyKeyButBudgetRejectsNullNamingWhatIsAllowed() {
    for (String key : PolicySetting.KEYS) {
      if (key.equals("budget")) {
        continue;
      }
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> read(key + " = null"), key);
      assertTrue(e.getMessage().startsWith(PATH + "." + key + ": null is not "), e.getMessage());
      assertFalse(e.getMessage().endsWith("null"), e.getMessage());
    }
  }

  @Test
  void systemConfigIncludesTheDefaults() {
    // what an actor sees in context.getSystem().settings().config()
    Config system = ConfigFactory.load(ConfigFactory.parseString(PATH + " { max-backoff = 3s }"));
    BackoffPolicy p = BackoffPolicy.fromConfig(system, PATH);
    assertEquals(Duration.ofSeconds(3), p.getMaxBackoff());
    assertEquals(Duration.ofMillis(100), p.getMinBackoff());
  }

  @Test
  void applicationDefaultsOverrideReferenceConf() {
    Config root =
        ConfigFactory.parseString(
            "supervision-backoff.default-policy { max-restarts = 3, publish-events = on }\n"
                + PATH
                + " { min-backoff = 1s }");
    BackoffPolicy p = BackoffPolicy.fromConfig(root, PATH);
    assertEquals(OptionalInt.of(3), p.getMaxRestarts());
    assertTrue(p.isEventStreamPublishing());
    assertEquals(Duration.ofSeconds(1), p.getMinBackoff());
    assertEquals(Duration.ofSeconds(10), p.getMaxBackoff());
  }

  @Test
  void singleArgumentFormReadsTheBlockItself() {
    Config block = root("max-restarts = 2").getConfig(PATH);
    BackoffPolicy p = BackoffPolicy.fromConfig(block);
    assertEquals(OptionalInt.of(2), p.getMaxRestarts());
  }

  @Test
  void singleArgumentFormRejectsABudgetItCannotLookUp() {
    Config block = ConfigFactory.parseString("budget = db");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BackoffPolicy.fromConfig(block));
    assertEquals(
        "budget (String: 1): \"db\" cannot be looked up: budgets are defined at supervision-backoff.budgets.<name>,"
            + " which only BackoffPolicy.fromConfig(root, path) can see",
        e.getMessage());
  }

  @Test
  void sameBudgetBlockGivesEqualPolicies() {
    String budgets = "a { permits = 1, period = 1s }\nb { permits = 1, period = 1s }";
    assertEquals(read("budget = a", budgets), read("budget = a", budgets));
    assertFalse(read("budget = a", budgets).equals(read("budget = b", budgets)));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "permits = 0, period = 1s | supervision-backoff.budgets.db.permits: 0 is not allowed: permits must be >= 1 but was 0",
        "permits = many, period = 1s | supervision-backoff.budgets.db.permits: \"many\" is not a whole number >= 1",
        "period = 1s | supervision-backoff.budgets.db.permits: missing; expected a whole number >= 1",
        "permits = 1 | supervision-backoff.budgets.db.period: missing; expected a duration >= 10ms",
        "permits = 1, period = 1ms | supervision-backoff.budgets.db.period: \"1ms\" is not allowed: period must be >= PT0.01S but was PT0.001S",
        "permits = 1, period = 1s, burst = 0 | supervision-backoff.budgets.db.burst: 0 is not allowed: burst must be >= 1 but was 0",
        "permits = 1, period = 1s, burst = lots | supervision-backoff.budgets.db.burst: \"lots\" is not auto or a whole number >= 1",
        "permits = 1, period = 1s, cluster-wide = maybe | supervision-backoff.budgets.db.cluster-wide: \"maybe\" is not one of on, off, true, false, yes, no",
        "permits = 1, period = 1s, rate = 5 | supervision-backoff.budgets.db.rate: unknown setting; a restart budget block has only mode, permits, period, burst, cluster-wide, probation, hold-after",
        "mode = smart | supervision-backoff.budgets.db.mode: \"smart\" is not one of fixed, adaptive",
        "mode = adaptive, probation = 0s | supervision-backoff.budgets.db.probation: \"0s\" is not allowed: probation must be > 0 but was PT0S",
        "mode = adaptive, hold-after = 0 | supervision-backoff.budgets.db.hold-after: 0 is not allowed: holdAfter must be >= 1 but was 0",
        "mode = adaptive, permits = 5 | supervision-backoff.budgets.db.permits: 5 needs period beside it: together they set an adaptive budget's ceiling",
        "mode = adaptive, permits = 0, period = 1s | supervision-backoff.budgets.db.permits: 0 is not allowed: permits must be >= 1 but was 0",
        "mode = adaptive, permits = 5, period = 1ms | supervision-backoff.budgets.db.period: \"1ms\" is not allowed: period must be >= PT0.01S but was PT0.001S",
      })
  void badBudgetValueNamesItsFullPath(String budget, String message) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> read("budget = db", "db { " + budget + " }"));
    assertEquals(message, e.getMessage());
  }

  @Test
  void undefinedBudgetIsRejected() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> read("budget = orders-db", "other { permits = 1, period = 1s }"));
    assertEquals(
        PATH
            + ".budget: \"orders-db\" is not defined: expected supervision-backoff.budgets.orders-db"
            + " { permits = ..., period = ... }",
        e.getMessage());
  }

  // ---------------------------------------------------------------- bad values

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "min-backoff = fast | min-backoff: \"fast\" is not a duration (for example 100ms, 2s, 1m)",
        "min-backoff = 0ms | min-backoff: \"0ms\" is not allowed: minBackoff must be > 0 but was PT0S",
        "min-backoff = null | min-backoff: null is not a duration > 0",
        "jitter = null | jitter: null is not one of full, equal, decorrelated, none",
        "max-restarts = null | max-restarts: null is not off or a whole number >= 0",
        "publish-events = null | publish-events: null is not one of on, off, true, false, yes, no",
        "max-backoff = 50ms | max-backoff: \"50ms\" is not allowed: maxBackoff must be >= minBackoff (PT0.1S) but was PT0.05S",
        "max-backoff = 181d | max-backoff: \"181d\" is not allowed: maxBackoff must be <= PT4320H but was PT4344H",
        "max-backoff = [1s] | max-backoff: [\"1s\"] is not a duration (for example 100ms, 2s, 1m)",
        "multiplier = 0.5 | multiplier: 0.5 is not allowed: multiplier must be a finite number >= 1.0 but was 0.5",
        "multiplier = twice | multiplier: \"twice\" is not a number",
        "jitter = fulll | jitter: \"fulll\" is not one of full, equal, decorrelated, none",
        "jitter = 3 | jitter: 3 is not one of full, equal, decorrelated, none",
        "reset-after = soon | reset-after: \"soon\" is not a duration (for example 30s) or auto",
        "reset-after = 0s | reset-after: \"0s\" is not allowed: resetAfter must be > 0 but was PT0S",
        "max-restarts = -1 | max-restarts: -1 is not allowed: maxRestarts must be >= 0 but was -1",
        "max-restarts = many | max-restarts: \"many\" is not off or a whole number >= 0",
        "max-restarts = 1.5 | max-restarts: 1.5 is not off or a whole number >= 0",
        "max-restarts = 9999999999 | max-restarts: 9999999999 is not off or a whole number >= 0",
        "stash-capacity = -1 | stash-capacity: -1 is not allowed: stashCapacity must be >= 0 but was -1",
        "stash-capacity = lots | stash-capacity: \"lots\" is not auto or a whole number >= 0",
        "stop-children = maybe | stop-children: \"maybe\" is not one of on, off, true, false, yes, no",
        "stop-on = java.io.IOException | stop-on: \"java.io.IOException\" is not a list of Throwable class names, for example [\"java.io.IOException\"]",
        "stop-on = [\"java.io.IOExceptio\"] | stop-on: [\"java.io.IOExceptio\"] names class java.io.IOExceptio, which is not found (write the binary name, for example java.io.IOException or com.example.Outer$Inner)",
        "restart-on = [\"java.lang.String\"] | restart-on: [\"java.lang.String\"] names class java.lang.String, which is not a Throwable",
        "restart-on = [1] | restart-on: [1] is not a list of Throwable class names: element 0 is 1",
        "random-seed = abc | random-seed: \"abc\" is not off or a whole number",
        "random-seed = 1.5 | random-seed: 1.5 is not off or a whole number",
        "max-retry-after = 0s | max-retry-after: \"0s\" is not allowed: maxRetryAfter must be > 0 but was PT0S",
        "max-retry-after = never | max-retry-after: \"never\" is not a duration (for example 100ms, 2s, 1m)",
        "log-level = loud | log-level: \"loud\" is not one of error, warn, info, debug, trace",
        "critical-log-level = fatal | critical-log-level: \"fatal\" is not one of error, warn, info, debug, trace",
        "critical-log-level-after = 0 | critical-log-level-after: 0 is not allowed: afterFailures must be >= 1 but was 0",
        "critical-log-level-after = sometimes | critical-log-level-after: \"sometimes\" is not off or a whole number >= 1",
        "logging-enabled = maybe | logging-enabled: \"maybe\" is not one of on, off, true, false, yes, no",
        "publish-events = 2 | publish-events: 2 is not one of on, off, true, false, yes, no",
        "budget = \"\" | budget: \"\" is not a restart budget's name (a non-empty string) or null",
        "budget = 5 | budget: 5 is not a restart budget's name (a non-empty string) or null",
        "jiter = full | jiter: unknown setting; a backoff policy block has only min-backoff, max-backoff, multiplier, jitter, reset-after, max-restarts, stash-capacity, stop-children, restart-on-stop, manual-reset, stop-on, restart-on, random-seed, max-retry-after, log-level, critical-log-level, critical-log-level-after, logging-enabled, aggregate-logs, publish-events, budget",
      })
  void badValueNamesFullPathValueAndWhatIsAllowed(String block, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(block));
    assertEquals(PATH + "." + message, e.getMessage());
  }

  @Test
  void issueExampleMessage() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> read("jitter = fulll"));
    assertEquals(
        "my-service.worker-backoff.jitter: \"fulll\" is not one of full, equal, decorrelated, none",
        e.getMessage());
  }

  @Test
  void badApplicationDefaultIsNamedByTheDefaultsPath() {
    Config root =
        ConfigFactory.parseString(
            "supervision-backoff.default-policy.jitter = fulll\n" + PATH + " { min-backoff = 1s }");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BackoffPolicy.fromConfig(root, PATH));
    assertEquals(
        "supervision-backoff.default-policy.jitter: \"fulll\" is not one of full, equal, decorrelated, none",
        e.getMessage());
  }

  @Test
  void missingBlockIsRejected() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BackoffPolicy.fromConfig(ConfigFactory.empty(), PATH));
    assertEquals(PATH + ": missing; expected a backoff policy block { ... }", e.getMessage());
  }

  @Test
  void blockThatIsNotAnObjectIsRejected() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BackoffPolicy.fromConfig(ConfigFactory.parseString(PATH + " = 5s"), PATH));
    assertEquals(PATH + ": \"5s\" is not a backoff policy block { ... }", e.getMessage());
  }

  @Test
  void applicationDefaultsThatAreNotABlockAreRejected() {
    Config root =
        ConfigFactory.parseString("supervision-backoff.default-policy = 5\n" + PATH + " {}");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BackoffPolicy.fromConfig(root, PATH));
    assertEquals(
        "supervision-backoff.default-policy: 5 is not a backoff policy block { ... }",
        e.getMessage());
  }

  @Test
  void invalidPathIsRejected() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BackoffPolicy.fromConfig(ConfigFactory.empty(), "a..b"));
    assertTrue(e.getMessage().startsWith("\"a..b\" is not a valid config path: "), e.getMessage());
  }

  @Test
  void singleArgumentFormNamesKeyAndOrigin() {
    Config block = ConfigFactory.parseString("min-backoff = 1s\njitter = fulll");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BackoffPolicy.fromConfig(block));
    assertEquals(
        "jitter (String: 2): \"fulll\" is not one of full, equal, decorrelated, none",
        e.getMessage());
  }

  @Test
  void nullArgumentsAreNamed() {
    NullPointerException a =
        assertThrows(NullPointerException.class, () -> BackoffPolicy.fromConfig(null));
    assertEquals("config must not be null", a.getMessage());
    NullPointerException b =
        assertThrows(NullPointerException.class, () -> BackoffPolicy.fromConfig(null, PATH));
    assertEquals("root must not be null", b.getMessage());
    NullPointerException c =
        assertThrows(
            NullPointerException.class,
            () -> BackoffPolicy.fromConfig(ConfigFactory.empty(), null));
    assertEquals("path must not be null", c.getMessage());
  }
}
