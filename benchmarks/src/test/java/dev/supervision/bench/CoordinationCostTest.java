package dev.supervision.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.bench.RemoteTraffic.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordination-cost harness on three nodes in one JVM: it goes through its phases, the budget is
 * in the state each phase is named after, and the coordination sends what the design says: one
 * learner (a Cluster Singleton on the oldest node) that each round (100 ms) takes one report from
 * every node and sends one lease to every node. So, once the budget exists, a node other than the
 * learner's sends one report a round and receives one lease a round (10 a second each), and the
 * learner's node receives {@code N - 1} reports and sends {@code N - 1} leases a round over the wire
 * (its own node's client is local). The checks allow half a round to one and a half rounds per
 * round: they fail if the coordination sends nothing, or stalls for half the window, or sends half
 * as much again as designed (a second report a round on every node, say). Before the budget exists
 * nothing of it is sent. A message of either kind is well under 1,000 B (a report is about 480 B, a
 * lease 300 B, with Artery's envelope). The figures themselves are measured by the command in
 * BENCHMARKS.md ("Coordination cost of one learner"), not here; the harness's lines go to the log
 * ({@code target/coordination-cost-test.log}).
 *
 * <p>Each phase is measured for 2 s, 20 rounds; the run waits 1 s (10 rounds) after every node holds
 * a lease that counts every node before it measures idle (the reports a client sends to register
 * are over by then), and 1 s after every node holds before it measures holding.
 */
final class CoordinationCostTest {

  private static final Logger log = LoggerFactory.getLogger(CoordinationCostTest.class);

  private static final int NODES = 3;

  /** Each phase's window in seconds: 20 rounds. */
  private static final int WINDOW = 2;

  /** The learner's rounds per second (the adaptive budget's slice, 100 ms). */
  private static final double ROUNDS = 10;

  private static final double LOW = 0.5;
  private static final double HIGH = 1.5;
  private static final double MAX_BYTES_EACH = 1_000;

  private static long messages(CoordinationCost.Figures f, Kind kind) {
    return f.traffic().kinds().get(kind)[0];
  }

  /** Checks messages per round against the design's one, and bytes per message. */
  private static void perRound(String what, double[] perSecond, double expectedPerRound) {
    double perRound = perSecond[0] / ROUNDS;
    String text =
        String.format(
            Locale.ROOT,
            "%s: %.2f messages a round (designed: %.0f), %.0f B/s",
            what,
            perRound,
            expectedPerRound,
            perSecond[1]);
    assertTrue(perRound >= LOW * expectedPerRound, text);
    assertTrue(perRound <= HIGH * expectedPerRound, text);
    assertTrue(perSecond[1] / perSecond[0] < MAX_BYTES_EACH, text);
  }

  @Test
  void threeNodesGoThroughThePhases_andEachRoundCarriesOneReportAndOneLeasePerNode()
      throws Exception {
    List<CoordinationCost.Figures> phases =
        CoordinationCost.run(
            NODES,
            WINDOW,
            100,
            0,
            1,
            new CoordinationCost.Pauses(Duration.ofSeconds(1), Duration.ofSeconds(1)),
            log::info);
    assertEquals(
        List.of("cluster", "idle", "holding", "ramp"),
        phases.stream().map(CoordinationCost.Figures::phase).toList());
    CoordinationCost.Figures cluster = phases.get(0);
    CoordinationCost.Figures idle = phases.get(1);
    CoordinationCost.Figures holding = phases.get(2);
    for (CoordinationCost.Figures f : phases) {
      assertEquals(NODES, f.nodes(), f.phase());
      assertTrue(messages(f, Kind.CLUSTER_HEARTBEAT) > 0, f.phase() + ": cluster heartbeats");
      assertTrue(f.pekkoCpuSeconds() > 0, f.phase() + ": CPU of the systems' threads");
    }
    // no budget yet: no learner, no singleton
    assertEquals(0, messages(cluster, Kind.COORDINATION));
    assertEquals(0, messages(cluster, Kind.SINGLETON));
    assertEquals(Map.of(), cluster.states());
    assertEquals(Map.of(State.STEADY, NODES), idle.states());
    // every node held when the window began; a loaded machine may let one leave it early
    assertEquals(NODES, holding.states().values().stream().mapToInt(Integer::intValue).sum());
    assertTrue(holding.states().getOrDefault(State.HOLDING, 0) >= 1, holding.states().toString());
    // a lease every round whatever the state (steady too), and a report answering each
    for (CoordinationCost.Figures f : phases.subList(1, phases.size())) {
      CoordinationCost.Coordination c = CoordinationCost.Coordination.of(f);
      perRound(f.phase() + ", a node's reports sent", c.nodeSent(), 1);
      perRound(f.phase() + ", a node's leases received", c.nodeReceived(), 1);
      perRound(f.phase() + ", reports in at the learner", c.learnerIn(), NODES - 1);
      perRound(f.phase() + ", leases out at the learner", c.learnerOut(), NODES - 1);
    }
  }
}
