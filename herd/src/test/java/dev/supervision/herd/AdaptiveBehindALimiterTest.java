package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The adaptive budget behind an nginx-style rate limiter (excess rejected at once), in exact mode
 * with the library's own controller and pacer, which are not told the rate: every cell back within
 * 1.2 x N/C (the slowest row, 2,000 cells at 200/s without burst, takes 11.83 s), at most 5 % of N
 * rejected after the outage, never slower than full jitter alone, for bursts of 0 to 100. Before the gate paced its grants, a slice's permits went out together and a
 * limiter with a small burst rejected most of each clump: with burst 0 the budget nearly stopped.
 */
final class AdaptiveBehindALimiterTest {

  @ParameterizedTest(name = "{0} cells, limiter {1}/s burst {2}")
  @CsvSource({
    "10000, 1000, 0, 1.2", "10000, 1000, 5, 1.2", "10000, 1000, 20, 1.2", "10000, 1000, 100, 1.2",
    "2000, 200, 0, 1.2", "2000, 200, 5, 1.2", "2000, 200, 20, 1.2", "2000, 200, 100, 1.2"
  })
  void adaptiveBudget_learnsTheLimitersRate_notItsBurst(
      int cells, int rate, int burst, double within) {
    HerdScenario s =
        new HerdScenario(
            cells,
            Duration.ofSeconds(2),
            Duration.ofMillis(100),
            Duration.ofSeconds(20),
            1.0,
            1,
            true,
            List.of("full", Strategies.ADAPTIVE_ID),
            Path.of("target", "unused"),
            ResourceSpec.limiter(rate, burst),
            null);
    Map<String, StrategyResult> r =
        Herd.run(s, Progress.NONE).stream()
            .collect(Collectors.toMap(StrategyResult::strategy, Function.identity()));
    StrategyResult adaptive = r.get(Strategies.ADAPTIVE_ID);
    String figures = adaptive.toString();
    assertEquals(10_000, s.physicalLimit().toMillis());
    assertTrue(adaptive.allRecovered(), figures);
    assertTrue(
        adaptive.allRecoveredMs() <= within * s.physicalLimit().toMillis(),
        adaptive.allRecoveredMs() + " ms > " + within + " x " + s.physicalLimit().toMillis());
    assertTrue(
        adaptive.failedCallsAfterOutage() <= cells / 20,
        "rejected after the outage: " + adaptive.failedCallsAfterOutage());
    StrategyResult full = r.get("full");
    assertTrue(
        !full.allRecovered() || adaptive.allRecoveredMs() <= full.allRecoveredMs(),
        "slower than full jitter alone: "
            + adaptive.allRecoveredMs()
            + " > "
            + full.allRecoveredMs());
    assertEquals(0, adaptive.resourceCrashes(), figures);
  }
}
