package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each real-mode row counts the WARN and ERROR lines it wrote: with the supervisors' logging at
 * their defaults, Pekko's and ours without a budget write a line per failure, ours with a budget
 * aggregates them; with logging off (the default) they write none.
 */
final class RowLogLinesTest {

  private static HerdScenario scenario(Path dir) {
    return new HerdScenario(
        200,
        Duration.ofSeconds(1),
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        1.0,
        1,
        false,
        List.of("pekko-backoff-0.2", "full", "adaptive"),
        dir);
  }

  @Test
  void atTheDefaults_aLinePerFailureWithoutABudget_aggregatedWithOne(@TempDir Path dir) {
    List<StrategyResult> results =
        Herd.run(scenario(dir).withLogging(HerdScenario.Logging.DEFAULTS), Progress.NONE);
    long pekko = StrategyResult.find(results, "pekko-backoff-0.2").orElseThrow().logLines();
    long full = StrategyResult.find(results, "full").orElseThrow().logLines();
    long adaptive = StrategyResult.find(results, "adaptive").orElseThrow().logLines();
    // every one of the 200 cells fails at least once (the strike)
    assertTrue(pekko >= 200, "pekko " + pekko);
    assertTrue(full >= 200, "full " + full);
    // aggregated: a line per cause and second while failures go on (a few seconds here), where one
    // line per failure would be at least 200
    assertTrue(adaptive >= 1 && adaptive < 20, "adaptive " + adaptive + " vs full " + full);
  }

  @Test
  void loggingOff_noLines(@TempDir Path dir) {
    for (StrategyResult r : Herd.run(scenario(dir), Progress.NONE)) {
      assertEquals(0L, r.logLines(), r.strategy());
    }
  }
}
