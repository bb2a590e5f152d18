package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The adaptive budget's targets, in exact mode with the library's own controller, which is not told
 * the capacity: every cell back within 1.2 x N/C (1.3 x at 2,000/s), the resource never knocked over
 * again, at most 5 % of N failed calls after the outage, no second above 1.1 x C, no 100 ms above
 * 2 x C, at most 10 calls during the outage.
 */
final class AdaptiveTargetsTest {

  @ParameterizedTest(name = "C = {0}/s, cold = {1}")
  @CsvSource({"1000, false, 1.2", "1000, true, 1.2", "2000, false, 1.3", "2000, true, 1.3"})
  void adaptiveBudget_meetsItsTargets_withoutBeingToldTheCapacity(
      int capacity, boolean cold, double within) {
    int cells = 10_000;
    HerdScenario s =
        new HerdScenario(
            cells,
            Duration.ofSeconds(2),
            Duration.ofMillis(100),
            Duration.ofSeconds(20),
            1.0,
            1,
            true,
            List.of(Strategies.ADAPTIVE_ID),
            Path.of("target", "unused"),
            new ResourceSpec(capacity, 3, Duration.ofSeconds(1), cold),
            null);
    StrategyResult r = Herd.run(s, Progress.NONE).get(0);
    String figures = r.toString();
    assertTrue(r.allRecovered(), figures);
    assertTrue(
        r.allRecoveredMs() <= within * s.physicalLimit().toMillis(),
        r.allRecoveredMs() + " ms > " + within + " x " + s.physicalLimit().toMillis());
    assertEquals(0, r.resourceCrashes(), figures);
    assertTrue(
        r.failedCallsAfterOutage() <= cells / 20,
        "failed after the outage: " + r.failedCallsAfterOutage());
    assertTrue(
        r.busiestSecondAfterOutage() <= 1.1 * capacity,
        "busiest second " + r.busiestSecondAfterOutage());
    assertTrue(
        r.recoveryPeakPerSecond() <= 2 * capacity,
        "busiest 100 ms x 10: " + r.recoveryPeakPerSecond());
    assertTrue(r.callsDuringOutage() <= 10, "calls during the outage: " + r.callsDuringOutage());
  }
}
