package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The one learner of a cluster-wide adaptive budget: what it learns and what it leases. */
final class LeaseLearnerTest {

  private static final long MS = 1_000_000L;
  private static final long ROUND = 100 * MS;

  private final Map<Long, Long> sequences = new HashMap<>();

  private LeaseLearner learner() {
    return new LeaseLearner(Parameters.defaults(), new AdaptiveRateController.Listener() {});
  }

  /** A report of {@code node}, numbered after its last one. */
  private NodeReport report(
      long node, int waiting, int uncovered, int started, boolean probe, int failedNotGranted) {
    return report(node, waiting, uncovered, started, probe, failedNotGranted, List.of());
  }

  private NodeReport report(
      long node,
      int waiting,
      int uncovered,
      int started,
      boolean probe,
      int failedNotGranted,
      List<Long> failedStartedIn) {
    long seq = sequences.merge(node, 1L, Long::sum) - 1;
    return new NodeReport(
        seq,
        waiting,
        uncovered,
        started,
        probe,
        failedNotGranted,
        failedStartedIn,
        State.STEADY,
        Double.POSITIVE_INFINITY);
  }

  /** A learner that heard ten failures from node 1 (and a quiet node 2) and holds. */
  private LeaseLearner holding() {
    LeaseLearner l = learner();
    l.onReport(1, report(1, 40, 40, 0, false, 10), 0);
    l.onReport(2, report(2, 10, 10, 0, false, 0), 0);
    l.round(0);
    assertSame(State.HOLDING, l.state());
    return l;
  }

  @Test
  void whileSteadyWithoutACeiling_everyNodeMayRestartAtOnce() {
    LeaseLearner l = learner();
    l.onReport(1, report(1, 0, 0, 0, false, 0), 0);
    l.onReport(2, report(2, 0, 0, 0, false, 0), 0);
    Map<Long, Lease> leases = l.round(0);
    assertEquals(2, leases.size());
    for (Lease lease : leases.values()) {
      assertTrue(lease.unlimited());
      assertSame(State.STEADY, lease.state());
      assertEquals(2, lease.inView());
    }
  }

  @Test
  void whileHolding_oneProbeAtATimeGoesToTheNodeWithTheMostUncoveredWaiting() {
    LeaseLearner l = holding();
    Map<Long, Lease> first = l.round(ROUND); // the first probe, 100 ms after holding
    assertTrue(first.get(1L).probe());
    assertEquals(1, first.get(1L).permits());
    assertFalse(first.get(2L).probe());
    assertEquals(0, first.get(2L).permits());
    // the probe has not started yet: no second probe, however many rounds pass
    for (int k = 2; k < 6; k++) {
      for (Lease lease : l.round(k * ROUND).values()) {
        assertFalse(lease.probe(), "round " + k);
      }
    }
  }

  @Test
  void aProbeThatSurvivesItsProbation_startsTheRamp_whosePermitsFollowTheWaiting() {
    LeaseLearner l = holding();
    l.round(ROUND);
    l.onReport(1, report(1, 39, 39, 1, true, 0), ROUND + 2 * MS);
    l.onReport(2, report(2, 10, 10, 0, false, 0), ROUND + 2 * MS);
    l.round(2 * ROUND);
    l.round(3 * ROUND);
    Map<Long, Lease> leases = l.round(4 * ROUND);
    assertSame(State.RAMPING, l.state());
    // 100 per second: 10 permits a round, 39 : 10 waiting
    assertEquals(8, leases.get(1L).permits());
    assertEquals(2, leases.get(2L).permits());
  }

  @Test
  void failuresCountAgainstTheRoundInWhichTheirStartArrived() {
    LeaseLearner l = holding();
    l.round(ROUND);
    l.onReport(1, report(1, 39, 39, 1, true, 0), ROUND + 2 * MS);
    l.round(2 * ROUND);
    // the probe's start arrived in report 1 of node 1; its failure comes two reports later
    l.onReport(1, report(1, 39, 39, 0, false, 0), 2 * ROUND + 2 * MS);
    l.onReport(1, report(1, 39, 39, 0, false, 0, List.of(1L)), 2 * ROUND + 50 * MS);
    l.round(3 * ROUND);
    l.round(4 * ROUND);
    assertSame(State.HOLDING, l.state(), "the probe failed within its probation");
  }

  @Test
  void aNodeNotHeardForALeasesValidity_isNoLongerCounted() {
    LeaseLearner l = learner();
    l.onReport(1, report(1, 0, 0, 0, false, 0), 0);
    l.onReport(2, report(2, 0, 0, 0, false, 0), 0);
    l.onReport(1, report(1, 0, 0, 0, false, 0), 500 * MS);
    assertEquals(2, l.round(500 * MS).size());
    assertEquals(1, l.round(501 * MS).size());
    assertEquals(1, l.nodes());
  }

  @Test
  void aReportSeenAlreadyCountsOnce() {
    LeaseLearner l = learner();
    NodeReport r = report(1, 5, 5, 0, false, 5);
    l.onReport(1, r, 0);
    l.onReport(1, r, 0);
    l.round(0);
    assertSame(State.STEADY, l.state(), "five failures, not ten");
  }

  @Test
  void aNewLearnerTakesOverFromTheNodes_holdingIfAnyHolds() {
    LeaseLearner l = learner();
    l.onReport(1, state(State.RAMPING, 40), 0);
    l.onReport(2, state(State.HOLDING, 0), 0);
    l.round(0);
    assertSame(State.HOLDING, l.state());
  }

  @Test
  void aNewLearnerTakesOverFromTheNodes_rampingAtTheSumOfTheirRates() {
    LeaseLearner l = learner();
    l.onReport(1, state(State.RAMPING, 40), 0);
    l.onReport(2, state(State.RAMPING, 25), 0);
    l.onReport(3, state(State.STEADY, Double.POSITIVE_INFINITY), 0);
    l.round(0);
    assertSame(State.RAMPING, l.state());
    assertEquals(65.0, l.rate());
  }

  private static NodeReport state(State state, double rate) {
    return new NodeReport(0, 0, 0, 0, false, 0, List.of(), state, rate);
  }

  /**
   * Whatever the waiting actors on each node, a ramping learner's leases sum to what its controller
   * grants (never more than its rate over a round, never more than the nodes ask for), each node
   * gets no more than it asks for, and the split follows the asks to within one permit.
   */
  @Property(tries = 300)
  void theLeasesSplitTheControllersPermitsInWholePermitsByTheAsks(
      @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 0, max = 500) Integer> asks) {
    LeaseLearner l = learner();
    l.onReport(0, state(State.RAMPING, 300), 0); // a new learner ramping at 300/s: 30 a round
    for (int i = 0; i < asks.size(); i++) {
      long node = i + 1;
      l.onReport(node, report(node, asks.get(i), asks.get(i), 0, false, 0), 0);
    }
    l.round(0); // a ramp taken over starts with an empty bucket
    Map<Long, Lease> leases = l.round(ROUND);
    long want = asks.stream().mapToLong(Integer::longValue).sum();
    long sum = 0;
    List<Integer> given = new ArrayList<>();
    for (int i = 0; i < asks.size(); i++) {
      int p = leases.get((long) i + 1).permits();
      assertTrue(p <= asks.get(i));
      given.add(p);
      sum += p;
    }
    assertEquals(Math.min(30, want), sum);
    for (int i = 0; i < asks.size(); i++) {
      double exact = want == 0 ? 0 : (double) sum * asks.get(i) / want;
      assertTrue(Math.abs(given.get(i) - exact) < 1, given.get(i) + " for " + exact);
    }
  }
}
