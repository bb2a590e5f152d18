package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The adaptive row on a cluster in exact mode: one production LeaseLearner leases permits to every
 * node, whose production LeaseHolder is driven as the library's gate drives it.
 */
final class ClusterExactModeTest {

  private static HerdScenario scenario(int cells, int capacity, ClusterSpec cluster) {
    return new HerdScenario(
            cells,
            Duration.ofSeconds(2),
            Duration.ofMillis(100),
            Duration.ofSeconds(20),
            1.0,
            1,
            true,
            List.of(Strategies.ADAPTIVE_ID),
            Path.of("target", "unused"),
            new ResourceSpec(capacity, 3, Duration.ofSeconds(1), false),
            null)
        .withCluster(cluster);
  }

  private static HerdScenario scenario(ClusterSpec cluster) {
    return scenario(10_000, 1000, cluster);
  }

  private static ClusterSpec nodes(int n, ClusterSpec.Skew skew, ClusterSpec.Sharing sharing) {
    return new ClusterSpec(n, skew, sharing);
  }

  private static ClusterSpec coordinated(int n) {
    return nodes(n, ClusterSpec.Skew.EVEN, ClusterSpec.Sharing.COORDINATED);
  }

  /** A run of the adaptive row whose cluster gate the test reads afterwards. */
  private record Traced(StrategyResult result, ClusterGate gate) {}

  private static Traced traced(HerdScenario s) {
    HerdStrategy.ExactRun model = new OursAdaptive("adaptive", s).exact(s).orElseThrow();
    ClusterGate gate = (ClusterGate) model.gate();
    HerdStrategy.ExactRun run =
        new HerdStrategy.ExactRun() {
          @Override
          public long restartDelayNanos(int index, int attempt, long failedAtNanos) {
            return model.restartDelayNanos(index, attempt, failedAtNanos);
          }

          @Override
          public HerdStrategy.ExactGate gate() {
            return gate;
          }
        };
    HerdStrategy strategy =
        new NamedStrategy("adaptive", "adaptive, traced") {
          @Override
          public RealRun real(HerdScenario scenario) {
            throw new UnsupportedOperationException("exact mode only");
          }

          @Override
          public Optional<ExactRun> exact(HerdScenario scenario) {
            return Optional.of(run);
          }

          @Override
          public Duration extraTime(HerdScenario scenario) {
            return new OursAdaptive("adaptive", scenario).extraTime(scenario);
          }
        };
    return new Traced(ExactHerd.run(strategy, s, Progress.NONE, 1, 1), gate);
  }

  /** The figures of a result without its nodes. */
  private static String brief(StrategyResult r) {
    return "back "
        + r.allRecoveredMs()
        + " ms ("
        + r.recovered()
        + " cells), failed "
        + r.failedCallsAfterOutage()
        + ", crashes "
        + r.resourceCrashes()
        + ", in outage "
        + r.callsDuringOutage()
        + ", busiest second "
        + r.busiestSecondAfterOutage();
  }

  @Test
  void oneNode_givesTheOneNodeFiguresExactly() {
    StrategyResult single = Herd.run(scenario(ClusterSpec.SINGLE), Progress.NONE).get(0);
    StrategyResult one =
        Herd.run(
                scenario(nodes(1, ClusterSpec.Skew.ZIPF, ClusterSpec.Sharing.SPLIT)), Progress.NONE)
            .get(0);
    assertEquals(single.allRecoveredMs(), one.allRecoveredMs());
    assertEquals(single.failedCallsAfterOutage(), one.failedCallsAfterOutage());
    assertEquals(single.calls(), one.calls());
    assertTrue(one.nodes().isEmpty());
  }

  /**
   * The grid's targets on ten nodes: every cell back within 1.3 x N/C, the resource never knocked
   * over, at most 5 % of N failed, at most 10 calls during the outage, no second above 1.1 x C.
   */
  @Test
  void tenNodes_coordinated_recoverWithinTheGridsTargets() {
    HerdScenario s = scenario(coordinated(10));
    StrategyResult r = Herd.run(s, Progress.NONE).get(0);
    String figures = brief(r);
    assertTrue(r.allRecovered(), figures);
    assertTrue(r.allRecoveredMs() <= 1.3 * s.physicalLimit().toMillis(), figures);
    assertEquals(0, r.resourceCrashes(), figures);
    assertTrue(r.callsDuringOutage() <= 10, "calls during the outage: " + r.callsDuringOutage());
    assertTrue(r.failedCallsAfterOutage() <= 500, figures);
    assertTrue(r.busiestSecondAfterOutage() <= 1100, figures);
    assertEquals(10, r.nodes().size());
    int grants = 0;
    for (Map<String, Object> node : r.nodes()) {
      grants += (Integer) node.get("grants");
      assertEquals(1000, node.get("cells"));
      assertEquals(0L, ((Number) node.get("fallbackMs")).longValue(), node.toString());
    }
    assertTrue(grants >= 10_000, "grants " + grants);
    assertTrue(r.nodes().get(0).containsKey("learner"), "the learner runs on node 0");
  }

  /**
   * While the resource is down, the cluster probes as one node: one restart at a time, so never two
   * calls in one 100 ms window of the outage (a node probing on its own would add its own), and
   * every round's leases carry at most one probe.
   */
  @Test
  void whileTheResourceIsDown_exactlyOneProbeAtATimeGoesOutClusterWide() {
    for (int n : List.of(10, 100)) {
      HerdScenario s = scenario(2000, 1000, coordinated(n));
      Traced t = traced(s);
      long[] windows = t.result().callsPer100ms();
      int outageWindows = (int) (s.outage().toMillis() / 100);
      long calls = 0;
      // window 0 holds the strike itself, every cell's failure at 0
      for (int w = 1; w < outageWindows && w < windows.length; w++) {
        assertTrue(
            windows[w] <= 1, n + " nodes, window " + w + ": " + java.util.Arrays.toString(windows));
        calls += windows[w];
      }
      assertTrue(calls >= 2, n + " nodes probed " + calls + " times in 2 s");
      for (ClusterGate.Round round : t.gate().rounds()) {
        assertTrue(round.probes() <= 1, round.toString());
        if (round.state() == State.HOLDING) {
          assertTrue(round.permits() <= 1, round.toString());
        }
      }
    }
  }

  /** The learner never leases more permits in a round than its rate allows over the round. */
  @Test
  void theLeasedPermitsOfARound_neverExceedTheLearnersRateTimesTheRound() {
    for (ClusterSpec.Skew skew : ClusterSpec.Skew.values()) {
      Traced t = traced(scenario(5000, 1000, nodes(10, skew, ClusterSpec.Sharing.COORDINATED)));
      double round = t.gate().round() / 1e9;
      long limited = 0;
      for (ClusterGate.Round r : t.gate().rounds()) {
        if (r.state() == State.RAMPING) {
          limited++;
          assertTrue(
              r.permits() <= Math.max(1, r.rate() * round) + 1e-9, skew + ": " + r.toString());
        }
      }
      assertTrue(limited > 10, skew + ": rounds that ramped " + limited);
      assertTrue(t.result().allRecovered(), brief(t.result()));
    }
  }

  private static ClusterSpec lost(int n, Duration at, Duration handover) {
    return new ClusterSpec(
        n,
        ClusterSpec.Skew.EVEN,
        ClusterSpec.Sharing.COORDINATED,
        ClusterSpec.LEARNER_DELAY,
        null,
        null,
        at,
        handover);
  }

  /**
   * The learner's node crashes mid-ramp: every other node's lease expires after its validity (5
   * rounds) and it falls back on its own controller, taking over the lease's ramp; after the
   * handover a new learner on node 1 leases again.
   */
  @Test
  void aNodeWhoseLeaseExpires_fallsBackOnItsOwnController_andANewLearnerTakesOver() {
    Duration at = Duration.ofSeconds(4);
    HerdScenario s = scenario(2000, 200, lost(10, at, Duration.ofSeconds(3)));
    StrategyResult r = Herd.run(s, Progress.NONE).get(0);
    for (int i = 1; i < 10; i++) {
      Map<String, Object> node = r.nodes().get(i);
      long fallback = ((Number) node.get("fallbackMs")).longValue();
      // from the expiry (at most 5 rounds and the delay after the crash) to the new learner's lease
      assertTrue(fallback >= 2500 && fallback <= 3600, "node " + i + ": " + fallback + " ms");
      String changes = node.get("stateChanges").toString();
      assertTrue(changes.contains("TAKEN_OVER"), "node " + i + ": " + changes);
    }
    assertTrue(r.nodes().get(1).containsKey("learner"), "the new learner runs on node 1");
    assertEquals(0, r.nodes().get(0).get("movedIn"));
    assertTrue((Integer) r.nodes().get(0).get("movedOut") > 0, r.nodes().get(0).toString());
  }

  /** A run with the learner lost finishes with every cell back, its node's cells too. */
  @Test
  void theLearnerLostMidRamp_everyCellComesBack_withoutKnockingTheResourceOver() {
    for (int n : List.of(10, 100)) {
      HerdScenario s = scenario(lost(n, Duration.ofSeconds(5), Duration.ofSeconds(3)));
      StrategyResult r = Herd.run(s, Progress.NONE).get(0);
      String figures = n + " nodes: " + brief(r);
      assertTrue(r.allRecovered(), figures);
      assertEquals(0, r.resourceCrashes(), figures);
      assertTrue(r.allRecoveredMs() <= 2 * s.physicalLimit().toMillis(), figures);
      int movedOut = (Integer) r.nodes().get(0).get("movedOut");
      int movedIn = 0;
      for (Map<String, Object> node : r.nodes()) {
        movedIn += (Integer) node.get("movedIn");
      }
      assertEquals(movedOut, movedIn, figures);
    }
  }

  @Test
  void split_keepsEveryNodeOnItsFallback_withoutALearner() {
    HerdScenario s =
        scenario(2000, 200, nodes(10, ClusterSpec.Skew.EVEN, ClusterSpec.Sharing.SPLIT));
    StrategyResult r = Herd.run(s, Progress.NONE).get(0);
    assertTrue(r.allRecovered(), brief(r));
    for (Map<String, Object> node : r.nodes()) {
      assertFalse(node.containsKey("learner"), node.toString());
      assertTrue(((Number) node.get("fallbackMs")).longValue() > 10_000, node.toString());
      assertFalse(node.get("stateChanges").toString().contains("LEASE"), node.toString());
    }
  }

  @Test
  void withoutCoordination_everyNodeProbes() {
    StrategyResult local =
        Herd.run(
                scenario(nodes(10, ClusterSpec.Skew.EVEN, ClusterSpec.Sharing.LOCAL)),
                Progress.NONE)
            .get(0);
    assertTrue(
        local.callsDuringOutage() > 10, "calls during the outage: " + local.callsDuringOutage());
  }

  @Test
  void placements_putTheCellsWhereTheyAreNamed() {
    int[] half = nodes(3, ClusterSpec.Skew.HALF, ClusterSpec.Sharing.LOCAL).placement(10);
    assertEquals(
        List.of(0, 0, 0, 0, 0, 1, 2, 1, 2, 1), java.util.Arrays.stream(half).boxed().toList());
    int[] zipf = nodes(4, ClusterSpec.Skew.ZIPF, ClusterSpec.Sharing.LOCAL).placement(25_000);
    int[] count = new int[4];
    for (int n : zipf) {
      count[n]++;
    }
    // 1 : 1/2 : 1/3 : 1/4 of 25,000 over H(4) = 25/12: 12,000, 6,000, 4,000, 3,000
    assertEquals(
        List.of(12_000, 6_000, 4_000, 3_000), java.util.Arrays.stream(count).boxed().toList());
  }

  private static ClusterSpec changing(Duration leaveAt, Duration joinAt) {
    return new ClusterSpec(
        10,
        ClusterSpec.Skew.EVEN,
        ClusterSpec.Sharing.COORDINATED,
        ClusterSpec.LEARNER_DELAY,
        leaveAt,
        joinAt,
        null,
        null);
  }

  /** The bounds of a node leaving or joining during the ramp: within 1.5 x N/C, no crash. */
  private static StrategyResult changingWithinTheTarget(ClusterSpec spec) {
    HerdScenario s = scenario(spec);
    StrategyResult r = Herd.run(s, Progress.NONE).get(0);
    String figures = brief(r);
    assertTrue(r.allRecovered(), figures);
    assertTrue(r.allRecoveredMs() <= 1.5 * s.physicalLimit().toMillis(), figures);
    assertEquals(0, r.resourceCrashes(), figures);
    assertTrue(r.callsDuringOutage() <= 10, figures);
    return r;
  }

  @Test
  void aNodeLeavingDuringTheRamp_handsItsCellsToTheOthers_andTheClusterRecovers() {
    StrategyResult r = changingWithinTheTarget(changing(Duration.ofSeconds(3), null));
    Map<String, Object> leaving = r.nodes().get(9);
    int moved = (Integer) leaving.get("movedOut");
    assertTrue(moved > 0 && moved <= 1000, "moved " + moved);
    int movedIn = 0;
    for (Map<String, Object> node : r.nodes()) {
      movedIn += (Integer) node.get("movedIn");
    }
    assertEquals(moved, movedIn);
  }

  @Test
  void aNodeJoiningDuringTheRamp_registersWithTheLearner_andRampsOnItsLeases() {
    StrategyResult r = changingWithinTheTarget(changing(null, Duration.ofSeconds(3)));
    assertEquals(11, r.nodes().size());
    for (int i = 0; i < 10; i++) {
      assertEquals(0L, ((Number) r.nodes().get(i).get("fallbackMs")).longValue(), "node " + i);
    }
    Map<String, Object> joiner = r.nodes().get(10);
    assertTrue((Integer) joiner.get("movedIn") > 0, joiner.toString());
    // it took the learner's ramp from its first lease, before sharding moved cells to it
    assertTrue(
        joiner.get("stateChanges").toString().contains("-> RAMPING LEASE"), joiner.toString());
  }
}
