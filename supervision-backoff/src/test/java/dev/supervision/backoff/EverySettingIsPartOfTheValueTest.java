package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.event.Level;

/**
 * Every setting of the table takes part in equals, hashCode and toString: two policies that differ
 * in one setting only are not equal, hash differently and print differently. A new setting needs a sample value here.
 */
final class EverySettingIsPartOfTheValueTest {

  private static final BackoffPolicy BASE =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));
  private static final Predicate<Throwable> RULE = t -> false;
  private static final BackoffListener LISTENER = e -> {};
  private static final Predicate<Object> FINAL = m -> false;
  private static final BackoffHandler HANDLER = (m, d) -> false;

  /** A value other than the default, for each setting, by its name. */
  private static final Map<String, Object> SAMPLES =
      Map.ofEntries(
          Map.entry("minBackoff", Duration.ofMillis(200)),
          Map.entry("maxBackoff", Duration.ofSeconds(2)),
          Map.entry("multiplier", 3.0),
          Map.entry("jitter", Jitter.none()),
          Map.entry("resetAfter", Duration.ofSeconds(9)),
          Map.entry("maxRestarts", 4),
          Map.entry("stashCapacity", 1000),
          Map.entry("stopChildren", false),
          Map.entry("restartOnStop", true),
          Map.entry("finalStopMessage", FINAL),
          Map.entry("manualReset", true),
          Map.entry("handlerWhileBackingOff", HANDLER),
          Map.entry("stopOn", List.of(IOException.class)),
          Map.entry("stopOnPredicate", RULE),
          Map.entry("restartOn", List.of(IOException.class)),
          Map.entry("randomSeed", 7L),
          Map.entry("maxRetryAfter", Duration.ofMinutes(5)),
          Map.entry("logLevel", Level.ERROR),
          Map.entry("criticalLogLevel", Level.WARN),
          Map.entry("criticalLogLevelAfter", 3),
          Map.entry("loggingEnabled", false),
          Map.entry("aggregatedLogging", true),
          Map.entry("eventStreamPublishing", true),
          Map.entry("budget", RestartBudget.of("db", 10, Duration.ofSeconds(1))),
          Map.entry("listeners", List.of(LISTENER)));

  static Stream<BackoffPolicy.Setting<?>> settings() {
    return BackoffPolicy.Setting.ALL.stream();
  }

  @SuppressWarnings("unchecked")
  private static <T> BackoffPolicy changed(BackoffPolicy.Setting<T> setting) {
    Object sample = SAMPLES.get(setting.name);
    assertNotNull(
        sample, "no sample value for the setting " + setting.name + ": add one to SAMPLES");
    return BASE.with(setting, (T) sample);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("settings")
  void aPolicyThatDiffersInThisSettingIsNotEqualAndPrintsDifferently(
      BackoffPolicy.Setting<?> setting) {
    BackoffPolicy changed = changed(setting);
    assertNotEquals(BASE, changed);
    assertNotEquals(BASE.toString(), changed.toString());
    // the hash is over every setting: changing one element of the settings changes it
    assertNotEquals(BASE.hashCode(), changed.hashCode());
    BackoffPolicy again = changed(setting);
    assertEquals(changed, again);
    assertEquals(changed.hashCode(), again.hashCode());
  }
}
