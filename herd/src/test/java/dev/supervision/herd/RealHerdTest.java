package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A small herd in a real ActorSystem, twice as fast as real time; a few seconds in all. */
final class RealHerdTest {

  @Test
  void smallRealHerd_everyCellRecovers_andNoJitterPeaksHigherThanFullJitter(@TempDir Path dir) {
    HerdScenario s =
        new HerdScenario(
            300,
            Duration.ofSeconds(1),
            Duration.ofMillis(100),
            Duration.ofSeconds(2),
            0.5,
            1,
            false,
            List.of("pekko-backoff-0.2", "none", "full"),
            dir);
    List<StrategyResult> results = Herd.run(s, Progress.NONE);
    for (StrategyResult r : results) {
      assertEquals(300, r.recovered(), r.strategy() + ": " + r.outcome());
      assertTrue(
          r.calls() >= 600,
          r.strategy()
              + " made only "
              + r.calls()
              + " calls: every cell fails once and recovers once");
    }
    long none = StrategyResult.find(results, "none").orElseThrow().recoveryPeakPerSecond();
    long full = StrategyResult.find(results, "full").orElseThrow().recoveryPeakPerSecond();
    assertTrue(full < none, "full " + full + " vs none " + none);
  }

  @Test
  void pekkoImmediateRestart_failingSetupOverflowsTheStack_andOnlyItsOwnActorSystemDies(
      @TempDir Path dir) {
    HerdScenario s =
        new HerdScenario(
            50,
            Duration.ofSeconds(1),
            Duration.ofMillis(100),
            Duration.ofSeconds(1),
            1.0,
            1,
            false,
            List.of("pekko-restart", "full"),
            dir);
    List<StrategyResult> results = Herd.run(s, Progress.NONE);
    StrategyResult immediate = results.get(0);
    assertTrue(immediate.outcome().contains("StackOverflowError"), immediate.outcome());
    assertTrue(
        immediate.callsDuringOutage() > 50,
        "it restarts without any delay: " + immediate.callsDuringOutage());
    // the next row runs in a fresh ActorSystem and is unaffected
    assertEquals(50, results.get(1).recovered(), results.get(1).outcome());
  }
}
