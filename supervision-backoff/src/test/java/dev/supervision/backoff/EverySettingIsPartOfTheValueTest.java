package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.event.Level;

/**
 * Every setting of the table takes part in equals, hashCode and toString: two policies that differ
 * in one setting only are not equal, hash differently and print differently. A new setting needs a
 * change here, through its public method.
 */
final class EverySettingIsPartOfTheValueTest {

  private static final BackoffPolicy BASE =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));
  private static final Predicate<Throwable> RULE = t -> false;
  private static final BackoffListener LISTENER = e -> {};
  private static final Predicate<Object> FINAL = m -> false;
  private static final BackoffHandler HANDLER = (m, d) -> false;

  /** A change of each setting to a value other than the default, by the setting's name. */
  private static final Map<String, UnaryOperator<BackoffPolicy>> CHANGES =
      Map.ofEntries(
          Map.entry(
              "minBackoff",
              p -> BackoffPolicy.exponential(Duration.ofMillis(200), p.getMaxBackoff())),
          Map.entry(
              "maxBackoff",
              p -> BackoffPolicy.exponential(p.getMinBackoff(), Duration.ofSeconds(2))),
          Map.entry("multiplier", p -> p.withMultiplier(3.0)),
          Map.entry("jitter", p -> p.withJitter(Jitter.none())),
          Map.entry("resetAfter", p -> p.withResetAfter(Duration.ofSeconds(9))),
          Map.entry("maxRestarts", p -> p.withMaxRestarts(4)),
          Map.entry("stashCapacity", p -> p.withStashCapacity(1000)),
          Map.entry("stopChildren", p -> p.withStopChildren(false)),
          Map.entry("restartOnStop", p -> p.withRestartOnStop(true)),
          Map.entry("finalStopMessage", p -> p.withFinalStopMessage(FINAL)),
          Map.entry("manualReset", BackoffPolicy::withManualReset),
          Map.entry("handlerWhileBackingOff", p -> p.withHandlerWhileBackingOff(HANDLER)),
          Map.entry("stopOn", p -> p.withStopOn(IOException.class)),
          Map.entry("stopOnPredicate", p -> p.withStopOn(RULE)),
          Map.entry("restartOn", p -> p.withRestartOn(IOException.class)),
          Map.entry("randomSeed", p -> p.withRandomSeed(7L)),
          Map.entry("maxRetryAfter", p -> p.withMaxRetryAfter(Duration.ofMinutes(5))),
          Map.entry("logLevel", p -> p.withLogLevel(Level.ERROR)),
          Map.entry("criticalLogLevel", p -> p.withCriticalLogLevel(Level.WARN, Integer.MAX_VALUE)),
          Map.entry("criticalLogLevelAfter", p -> p.withCriticalLogLevel(Level.ERROR, 3)),
          Map.entry("loggingEnabled", p -> p.withLoggingEnabled(false)),
          Map.entry("aggregatedLogging", p -> p.withAggregatedLogging(true)),
          Map.entry("eventStreamPublishing", p -> p.withEventStreamPublishing(true)),
          Map.entry("budget", p -> p.withBudget(RestartBudget.of("db", 10, Duration.ofSeconds(1)))),
          Map.entry("listeners", p -> p.withListener(LISTENER)));

  static Stream<String> settings() {
    return PolicySetting.ALL.stream().map(PolicySetting::name);
  }

  private static BackoffPolicy changed(String setting) {
    UnaryOperator<BackoffPolicy> change = CHANGES.get(setting);
    assertNotNull(change, "no change for the setting " + setting + ": add one to CHANGES");
    return change.apply(BASE);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("settings")
  void aPolicyThatDiffersInThisSettingIsNotEqualAndPrintsDifferently(String setting) {
    BackoffPolicy changed = changed(setting);
    assertNotEquals(BASE, changed);
    assertNotEquals(BASE.toString(), changed.toString());
    // the hash is over every setting: changing one element of the settings changes it
    assertNotEquals(BASE.hashCode(), changed.hashCode());
    BackoffPolicy again = changed(setting);
    assertEquals(changed, again);
    assertEquals(changed.hashCode(), again.hashCode());
  }

  @org.junit.jupiter.api.Test
  void everyChangeIsOfASettingOfTheTable() {
    assertEquals(
        new java.util.TreeSet<>(CHANGES.keySet()), new java.util.TreeSet<>(settings().toList()));
  }
}
