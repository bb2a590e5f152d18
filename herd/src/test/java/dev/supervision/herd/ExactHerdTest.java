package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

final class ExactHerdTest {

  private static final List<String> BACKOFF_STRATEGIES =
      List.of("pekko-backoff-0.0", "pekko-backoff-0.2", "none", "equal", "decorrelated", "full");

  private static HerdScenario scenario(int cells, long seed) {
    return new HerdScenario(
        cells,
        Duration.ofSeconds(2),
        Duration.ofMillis(100),
        Duration.ofSeconds(20),
        1.0,
        seed,
        true,
        BACKOFF_STRATEGIES,
        Path.of("target", "unused"));
  }

  private static Map<String, StrategyResult> run(HerdScenario s) {
    return Herd.run(s, Progress.NONE).stream()
        .collect(Collectors.toMap(StrategyResult::strategy, Function.identity()));
  }

  @Test
  void smallHerd_recoveryPeaksAreOrdered_fullBelowEqualBelowPekkoJitterBelowNone() {
    Map<String, StrategyResult> r = run(scenario(500, 1));
    long full = r.get("full").recoveryPeakPerSecond();
    long equal = r.get("equal").recoveryPeakPerSecond();
    long pekko = r.get("pekko-backoff-0.2").recoveryPeakPerSecond();
    long none = r.get("none").recoveryPeakPerSecond();
    assertTrue(
        full < equal && equal < pekko && pekko < none,
        "expected full < equal < pekko-backoff-0.2 < none but got "
            + full
            + ", "
            + equal
            + ", "
            + pekko
            + ", "
            + none);
  }

  @Test
  void smallHerd_everyCellRecovers_underEveryBackoffStrategy() {
    for (StrategyResult result : run(scenario(500, 1)).values()) {
      assertEquals(500, result.recovered(), result.strategy());
      assertTrue(result.allRecovered(), result.strategy());
      assertTrue(
          result.allRecoveredMs() != null && result.allRecoveredMs() >= result.p99RecoveredMs(),
          result.strategy());
      // every cell fails once when the outage strikes, once more for each failed restart, and
      // succeeds exactly once; the resource has no limit, so no call fails after the outage
      assertEquals(result.calls(), 500 + result.callsDuringOutage() + 500, result.strategy());
      assertEquals(0, result.failedCallsAfterOutage(), result.strategy());
    }
  }

  @Test
  void noJitter_restartsTheWholeHerdInOneInstant_afterDelaysSumPastTheOutage() {
    StrategyResult none = run(scenario(500, 1)).get("none");
    // 100 + 200 + 400 + 800 = 1500 ms < 2000 ms, + 1600 = 3100 ms: every cell recovers 1100 ms
    // after
    // the resource is back, all in the same window
    assertEquals(1100.0, none.p50RecoveredMs());
    assertEquals(1100.0, none.allRecoveredMs());
    assertEquals(500 * 10, none.recoveryPeakPerSecond());
    assertEquals(500 * 4, none.callsDuringOutage()); // the restarts at 100, 300, 700 and 1500 ms
  }

  @Test
  void sameSeed_givesTheSameResult_andAnotherSeedAnotherOne() {
    StrategyResult a = run(scenario(300, 7)).get("full");
    StrategyResult b = run(scenario(300, 7)).get("full");
    StrategyResult c = run(scenario(300, 8)).get("full");
    assertArrayEquals(a.callsPer100ms(), b.callsPer100ms());
    assertEquals(a.p50RecoveredMs(), b.p50RecoveredMs());
    assertEquals(a.allRecoveredMs(), b.allRecoveredMs());
    assertNotEquals(a.allRecoveredMs(), c.allRecoveredMs());
  }

  /**
   * Literal values beside the same-seed test above, whose expectation comes from the code itself:
   * two cells, seed 7, full jitter (100 ms to 20 s), a 2 s outage. Each cell draws from {@code new
   * SplittableRandom(7 ^ index * 0x9E3779B97F4A7C15L)}; computed outside the library, cell 0 calls
   * at 39.0, 42.3, 402.6, 869.0, 1592.9 ms (all failing) and 2391.1 ms, cell 1 at 92.4, 291.5,
   * 465.9, 584.8, 635.9 ms and 2165.6 ms: 14 calls with the two that failed when the outage struck,
   * 10 restarts during the outage (the strike's calls are not counted there), recovered 165.6 and
   * 391.1 ms after it.
   */
  @Test
  void twoCellsWithSeed7_recoverAtTheseLiteralTimes() {
    HerdScenario s =
        new HerdScenario(
            2,
            Duration.ofSeconds(2),
            Duration.ofMillis(100),
            Duration.ofSeconds(20),
            1.0,
            7,
            true,
            List.of("full"),
            Path.of("target", "unused"));
    StrategyResult full = run(s).get("full");
    assertEquals(14, full.calls());
    assertEquals(10, full.callsDuringOutage());
    assertEquals(165.6, full.p50RecoveredMs());
    assertEquals(391.1, full.allRecoveredMs());
  }

  /** A row with no backoff at all but a herd-wide gate: one restart per 10 ms, first come first served. */
  private static final class OnePer10ms implements HerdStrategy {
    @Override
    public String id() {
      return "gate";
    }

    @Override
    public String description() {
      return "no delay, one restart per 10 ms for the whole herd";
    }

    @Override
    public RealRun real(HerdScenario scenario) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<ExactRun> exact(HerdScenario scenario) {
      return Optional.of(
          new ExactRun() {
            @Override
            public long restartDelayNanos(int index, int attempt, long failedAtNanos) {
              return 0;
            }

            @Override
            public ExactGate gate() {
              return new ExactGate() {
                final ArrayDeque<Integer> waiting = new ArrayDeque<>();
                long nextFree;

                @Override
                public boolean offer(int cell, long now) {
                  if (waiting.isEmpty() && now >= nextFree) {
                    nextFree = now + 10_000_000L;
                    return true;
                  }
                  waiting.add(cell);
                  return false;
                }

                @Override
                public long nextWakeNanos() {
                  return waiting.isEmpty() ? Long.MAX_VALUE : nextFree;
                }

                @Override
                public void wake(long now, IntConsumer release) {
                  if (!waiting.isEmpty() && now >= nextFree) {
                    release.accept(waiting.poll());
                    nextFree = now + 10_000_000L;
                  }
                }
              };
            }
          });
    }
  }

  @Test
  void aHerdWideGate_capsTheRecoveryPeak() {
    StrategyResult r = ExactHerd.run(new OnePer10ms(), scenario(500, 1), Progress.NONE, 1, 1);
    assertEquals(500, r.recovered());
    assertTrue(r.recoveryPeakPerSecond() <= 100, "peak " + r.recoveryPeakPerSecond());
    assertTrue(r.recoveryPeakPerSecond() >= 90, "peak " + r.recoveryPeakPerSecond());
  }

  @Test
  void restartBudget_holdsTheBusiestSecondToPermitsPlusBurst_andEveryCellRecovers() {
    HerdScenario s =
        new HerdScenario(
            3_000,
            Duration.ofSeconds(2),
            Duration.ofMillis(100),
            Duration.ofSeconds(20),
            1.0,
            7,
            true,
            List.of("full", Strategies.BUDGET_ID),
            Path.of("target", "unused"));
    Map<String, StrategyResult> r = run(s);
    StrategyResult budgeted = r.get(Strategies.BUDGET_ID);
    long limit = Strategies.BUDGET_PER_SECOND + Strategies.budget().getBurst();
    assertTrue(budgeted.allRecovered(), budgeted.outcome());
    assertTrue(
        budgeted.busiestSecondAfterOutage() <= limit,
        "busiest second " + budgeted.busiestSecondAfterOutage() + " > " + limit);
    // the budget is what bounds it: full jitter alone goes well above the limit at this size
    assertTrue(
        r.get("full").busiestSecondAfterOutage() > limit,
        "full alone: " + r.get("full").busiestSecondAfterOutage());
    // and it is used: at least 90 % of the allowed rate in the busiest second
    assertTrue(
        budgeted.busiestSecondAfterOutage() >= Strategies.BUDGET_PER_SECOND * 9 / 10,
        "busiest second " + budgeted.busiestSecondAfterOutage());
  }
}
