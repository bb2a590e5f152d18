package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
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
}
