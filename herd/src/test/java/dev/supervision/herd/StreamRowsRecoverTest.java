package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream rows run in real mode: every restartable source fails on the strike, restarts during
 * the outage and comes back, under Pekko's RestartSource and under ours.
 */
final class StreamRowsRecoverTest {

  @Test
  void smallStreamHerd_everySourceFailsRestartsAndRecovers(@TempDir Path dir) {
    int cells = 200;
    HerdScenario s =
        new HerdScenario(
            cells,
            Duration.ofSeconds(1),
            Duration.ofMillis(100),
            Duration.ofSeconds(1),
            1.0,
            1,
            false,
            List.of(
                Strategies.STREAM_PEKKO_ID,
                Strategies.STREAM_FULL_ID,
                Strategies.STREAM_ADAPTIVE_ID),
            dir);
    List<StrategyResult> results = Herd.run(s, Progress.NONE);
    assertEquals(3, results.size());
    for (StrategyResult r : results) {
      assertEquals(cells, r.recovered(), r.strategy() + ": " + r.outcome());
      // each source's strike call fails, then at least one restart calls during the 1 s outage
      // (the first delay is at most 100 ms) or after it
      assertTrue(r.calls() >= 2L * cells, r.strategy() + " made only " + r.calls() + " calls");
      assertTrue(r.callsDuringOutage() > 0, r.strategy() + " never restarted during the outage");
    }
    // Pekko's RestartSource logs every restart at WARN, to the row's log file; ours logs nothing
    // here (the herd's policies turn logging off)
    StrategyResult pekko = StrategyResult.find(results, Strategies.STREAM_PEKKO_ID).orElseThrow();
    assertTrue(pekko.logLines() >= cells, "Pekko's log lines: " + pekko.logLines());
    assertEquals(
        0L, StrategyResult.find(results, Strategies.STREAM_FULL_ID).orElseThrow().logLines());
  }
}
