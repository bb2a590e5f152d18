package dev.supervision.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.bench.RemoteTraffic.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordination-cost harness on three nodes in one JVM: it goes through its phases, the budget is
 * in the state each phase is named after, and the traffic is told apart (the cluster's own
 * heartbeats in every phase; the coordination's Distributed Data only once the budget exists, and
 * more of it while it holds than while it is idle). The figures themselves are measured by the
 * command in BENCHMARKS.md, not here; the harness's lines go to the log
 * ({@code target/coordination-cost-test.log}).
 *
 * <p>The times come from the intervals the checks rest on, with Pekko's defaults: each phase is
 * measured for 2 s, two cluster heartbeats (1 s) and two coordination heartbeats (1 s: a holding
 * node writes its line at least once a heartbeat, an idle one not at all) and one Distributed Data
 * gossip interval (2 s). Before idle the run waits one gossip interval, after every node already
 * has every node's first line, so that the gossip round that follows the first lines is not
 * counted as idle traffic; before holding one coordination heartbeat, after every node holds.
 */
final class CoordinationCostTest {

  private static final Logger log = LoggerFactory.getLogger(CoordinationCostTest.class);

  /** Pekko's Distributed Data gossip interval and the coordination's heartbeat. */
  private static final Duration GOSSIP = Duration.ofSeconds(2);

  private static final Duration HEARTBEAT = Duration.ofSeconds(1);

  /** Each phase's window in seconds: two heartbeats, one gossip interval. */
  private static final int WINDOW = 2;

  private static long messages(CoordinationCost.Figures f, Kind kind) {
    return f.traffic().kinds().get(kind)[0];
  }

  @Test
  void threeNodesGoThroughThePhases_andTheCoordinationsTrafficIsToldApartFromTheClusters()
      throws Exception {
    List<CoordinationCost.Figures> phases =
        CoordinationCost.run(
            3, WINDOW, 100, 0, 1, new CoordinationCost.Pauses(GOSSIP, HEARTBEAT), log::info);
    assertEquals(
        List.of("cluster", "idle", "holding", "ramp"),
        phases.stream().map(CoordinationCost.Figures::phase).toList());
    CoordinationCost.Figures cluster = phases.get(0);
    CoordinationCost.Figures idle = phases.get(1);
    CoordinationCost.Figures holding = phases.get(2);
    for (CoordinationCost.Figures f : phases) {
      assertEquals(3, f.nodes(), f.phase());
      assertTrue(messages(f, Kind.CLUSTER_HEARTBEAT) > 0, f.phase() + ": cluster heartbeats");
      assertTrue(f.pekkoCpuSeconds() > 0, f.phase() + ": CPU of the systems' threads");
    }
    // no budget yet: the default replicator is not even started
    assertEquals(0, messages(cluster, Kind.COORDINATION));
    assertEquals(Map.of(), cluster.states());
    assertEquals(Map.of(State.STEADY, 3), idle.states());
    // every node held when the window began; a loaded machine may let one leave it early
    assertEquals(3, holding.states().values().stream().mapToInt(Integer::intValue).sum());
    assertTrue(holding.states().getOrDefault(State.HOLDING, 0) >= 1, holding.states().toString());
    // holding nodes write their lines (every second at least); idle ones wrote theirs once
    assertTrue(
        messages(holding, Kind.COORDINATION) > messages(idle, Kind.COORDINATION),
        "coordination messages: idle "
            + messages(idle, Kind.COORDINATION)
            + ", holding "
            + messages(holding, Kind.COORDINATION));
    assertTrue(messages(phases.get(3), Kind.COORDINATION) > 0);
  }
}
