package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * fromConfig errors that the shape of the config causes: each is an IllegalArgumentException whose
 * message starts with the full path as the operator wrote it, then what was found and what is
 * allowed (never a ConfigException, never a message about the wrong kind of block).
 */
final class BackoffPolicyFromConfigErrorsTest {

  private static final String PATH = "my-service.worker-backoff";
  private static final String BUDGET_DB =
      "supervision-backoff.budgets.db { permits = 1, period = 1s }\n";
  private static final String USES_DB = PATH + ".budget = db\n";

  static Stream<Arguments> badShapes() {
    return Stream.of(
        // a path that runs through a value that is not a block
        Arguments.of(
            "my-service = 5",
            "my-service.worker-backoff: my-service is 5, not a block { ... },"
                + " so it cannot hold a backoff policy block { ... }"),
        Arguments.of(
            "my-service = null",
            "my-service.worker-backoff: my-service is null, not a block { ... },"
                + " so it cannot hold a backoff policy block { ... }"),
        // a budget entry that is not a block
        Arguments.of(
            "supervision-backoff.budgets.db = null\n" + USES_DB,
            "supervision-backoff.budgets.db: null is not a restart budget block { permits = ..., period = ... }"),
        Arguments.of(
            "supervision-backoff.budgets.db = 5\n" + USES_DB,
            "supervision-backoff.budgets.db: 5 is not a restart budget block { permits = ..., period = ... }"),
        Arguments.of(
            "supervision-backoff.budgets = 5\n" + USES_DB,
            "supervision-backoff.budgets.db: supervision-backoff.budgets is 5, not a block { ... },"
                + " so it cannot hold a restart budget block { permits = ..., period = ... }"),
        Arguments.of(
            "supervision-backoff.default-budget = 5\n" + BUDGET_DB + USES_DB,
            "supervision-backoff.default-budget: 5 is not a block of restart budget defaults { ... }"),
        // typos in the application's defaults
        Arguments.of(
            "supervision-backoff.default-policy { max-backof = 1m }\n" + PATH + " {}",
            "supervision-backoff.default-policy.max-backof: unknown setting; a backoff policy block has only"
                + " min-backoff, max-backoff,"),
        Arguments.of(
            "supervision-backoff.default-budget { burts = 2 }\n" + BUDGET_DB + USES_DB,
            "supervision-backoff.default-budget.burts: unknown setting;"
                + " a block of restart budget defaults has only mode, permits, period, burst, cluster-wide"),
        // an unknown key with a dot is one quoted key, not a nested path
        Arguments.of(
            PATH + " { \"max-backoff.x\" = 1s }",
            "my-service.worker-backoff.\"max-backoff.x\": unknown setting; a backoff policy block has only"
                + " min-backoff, max-backoff,"),
        Arguments.of(
            "supervision-backoff.default-policy { \"jitter.kind\" = full }\n" + PATH + " {}",
            "supervision-backoff.default-policy.\"jitter.kind\": unknown setting;"),
        // substitutions that were never resolved (parseString without resolve()), wherever they are
        Arguments.of(
            "x = 5ms\n" + PATH + " { min-backoff = ${x} }", PATH + ": the config is not resolved"),
        Arguments.of(
            "x = [java.lang.Error]\n" + PATH + " { stop-on = ${x} }",
            PATH + ": the config is not resolved"),
        Arguments.of(
            "y { min-backoff = 5ms }\nmy-service { worker-backoff = ${y} }",
            PATH + ": the config is not resolved"),
        Arguments.of(
            "p = 2s\nsupervision-backoff.budgets.db { permits = 1, period = ${p} }\n" + USES_DB,
            PATH + ": the config is not resolved"));
  }

  @Test
  void anUnresolvedBlockReadWithTheOneArgumentFormIsAnIllegalArgumentToo() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                BackoffPolicy.fromConfig(
                    ConfigFactory.parseString("x = 5ms\np { min-backoff = ${x} }").getConfig("p")));
    assertTrue(
        e.getMessage().startsWith("the policy block: the config is not resolved"), e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badShapes")
  void messageStartsWithTheFullPathAndSaysWhatWasFound(String config, String messageStart) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BackoffPolicy.fromConfig(ConfigFactory.parseString(config), PATH));
    assertTrue(e.getMessage().startsWith(messageStart), e.getMessage());
  }

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
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                BackoffPolicy.fromConfig(
                    ConfigFactory.parseString(PATH + " { " + line + " }"), PATH));
    assertTrue(e.getMessage().startsWith(PATH + "." + key + " "), e::getMessage);
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
    String conf = "supervision-backoff.budgets.db { " + line + " }\n" + PATH + " { budget = db }";
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BackoffPolicy.fromConfig(ConfigFactory.parseString(conf), PATH));
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
