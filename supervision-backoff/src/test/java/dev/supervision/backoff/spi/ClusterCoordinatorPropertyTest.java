package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator.Decision;
import dev.supervision.backoff.spi.ClusterCoordinator.Heard;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The invariants of the cluster's coordination, for nodes that share a view and for those that do not. */
final class ClusterCoordinatorPropertyTest {

  private static final long STALE = 2_000_000_000L;
  private static final long NOW = 10_000_000_000L;
  private static final long SETTLE = 1_000_000_000L;
  private static final long SETTLED = SETTLE;
  private final ClusterCoordinator coordinator = new ClusterCoordinator(STALE, SETTLE);

  @Provide
  Arbitrary<List<Report>> clusters() {
    Arbitrary<Report> report =
        Combinators.combine(
                Arbitraries.of(State.class),
                Arbitraries.integers().between(0, 50_000),
                Arbitraries.doubles().between(0, 5_000),
                Arbitraries.longs().between(0, 5))
            .as((s, w, r, b) -> new Report(0, s, w, s == State.HOLDING ? 0 : r, b));
    return report
        .list()
        .ofMinSize(1)
        .ofMaxSize(120)
        .map(
            l -> {
              List<Report> out = new ArrayList<>();
              for (int i = 0; i < l.size(); i++) {
                Report r = l.get(i);
                // ids unique but not in list order
                out.add(
                    new Report(
                        i * 7919L % 1_000_003L, r.state(), r.waiting(), r.rate(), r.backEpoch()));
              }
              return out;
            });
  }

  private List<Decision> decideAll(List<Report> cluster, long heldAt) {
    List<Decision> out = new ArrayList<>();
    for (Report self : cluster) {
      List<Heard> others = new ArrayList<>();
      for (Report r : cluster) {
        if (r != self) {
          others.add(new Heard(r, NOW - STALE / 2));
        }
      }
      out.add(coordinator.decide(self, heldAt, SETTLED, cluster.size(), others, NOW));
    }
    return out;
  }

  @Property(tries = 300)
  boolean aCommonView_choosesExactlyOneProber_whileAnyNodeHoldsWithActorsWaiting(
      @ForAll("clusters") List<Report> cluster) {
    boolean anyHolding =
        cluster.stream().anyMatch(r -> r.state() == State.HOLDING && r.waiting() > 0);
    List<Decision> ds = decideAll(cluster, 0);
    long probers = ds.stream().filter(Decision::prober).count();
    boolean oneInterval = ds.stream().allMatch(d -> d.coordinated() && d.probeMembers() == 1);
    return oneInterval && probers == (anyHolding ? 1 : 0);
  }

  @Property(tries = 300)
  boolean aCommonView_givesSharesThatSumToOne_andFollowDemand(
      @ForAll("clusters") List<Report> cluster) {
    List<Decision> ds = decideAll(cluster, 0);
    double sum = 0;
    for (int i = 0; i < ds.size(); i++) {
      double s = ds.get(i).share();
      if (!(s > 0 && s <= 1)) {
        return false;
      }
      sum += s;
      for (int j = 0; j < ds.size(); j++) {
        int wi = cluster.get(i).waiting();
        int wj = cluster.get(j).waiting();
        if (wi > wj && !(s > ds.get(j).share())) {
          return false;
        }
      }
    }
    return Math.abs(sum - 1) < 1e-9;
  }

  @Property(tries = 300)
  boolean rebalancing_neverRaisesTheSumOfTheRampingNodesRates(
      @ForAll("clusters") List<Report> cluster) {
    double ramping =
        cluster.stream().filter(r -> r.state() == State.RAMPING).mapToDouble(Report::rate).sum();
    List<Decision> ds = decideAll(cluster, 0);
    double sum = 0;
    for (int i = 0; i < ds.size(); i++) {
      boolean isRamping = cluster.get(i).state() == State.RAMPING;
      if (isRamping == Double.isNaN(ds.get(i).rate())) {
        return false;
      }
      if (isRamping) {
        sum += ds.get(i).rate();
      }
    }
    return sum <= ramping * (1 + 1e-9) + 1e-9 && sum >= ramping * (1 - 1e-9) - 1e-9;
  }

  @Test
  void aRampingNodeThatKnowsNoOtherRamp_keepsItsRate() {
    Report self = new Report(1, State.RAMPING, 10, 40, 1);
    Report holding = new Report(2, State.HOLDING, 1000, 0, 0);
    Decision d = coordinator.decide(self, 0, SETTLED, 2, List.of(new Heard(holding, NOW)), NOW);
    assertEquals(40, d.rate(), 1e-9);
  }

  @Property(tries = 300)
  boolean oneNodeFindingTheResourceBack_resumesEveryHoldingNode_inOneRound(
      @ForAll @IntRange(min = 2, max = 150) int nodes,
      @ForAll @IntRange(min = 0, max = 1_000) int known,
      @ForAll @IntRange(min = 0, max = 149) int finderIndex) {
    int finder = finderIndex % nodes;
    long back = ClusterCoordinator.nextBackEpoch(known);
    List<Report> cluster = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      cluster.add(
          i == finder
              ? new Report(i, State.RAMPING, 10, 5, back)
              : new Report(i, State.HOLDING, 10, 0, known));
    }
    List<Decision> ds = decideAll(cluster, known);
    for (int i = 0; i < nodes; i++) {
      if (i != finder && !ds.get(i).resume()) {
        return false;
      }
      if (ds.get(i).backEpoch() != back) {
        return false;
      }
    }
    return !ds.get(finder).resume();
  }

  @Property(tries = 300)
  boolean aNodeThatStartedHoldingAfterTheNews_isNotResumedByIt(
      @ForAll @IntRange(min = 0, max = 1_000) int back) {
    Report self = new Report(1, State.HOLDING, 5, 0, back);
    Report other = new Report(2, State.RAMPING, 5, 50, back);
    Decision d = coordinator.decide(self, back, SETTLED, 2, List.of(new Heard(other, NOW)), NOW);
    return !d.resume() && d.prober();
  }

  @Property(tries = 300)
  boolean aStaleOrMissingReport_fallsBackToTheLocalShare_andEveryNodeProbes(
      @ForAll("clusters") List<Report> cluster, @ForAll boolean missing) {
    if (cluster.size() < 2 || (!missing && ClusterCoordinator.quiet(cluster.get(1)))) {
      return true;
    }
    Report self = cluster.get(0);
    List<Heard> others = new ArrayList<>();
    for (int i = 1; i < cluster.size(); i++) {
      long at = i == 1 && !missing ? NOW - STALE - 1 : NOW;
      if (!(i == 1 && missing)) {
        others.add(new Heard(cluster.get(i), at));
      }
    }
    Decision d = coordinator.decide(self, 0, SETTLED, cluster.size(), others, NOW);
    return !d.coordinated()
        && d.share() == 1.0 / cluster.size()
        && d.prober()
        && d.probeMembers() == cluster.size()
        && Double.isNaN(d.rate());
  }

  @Test
  void coordinationComesBack_assoonAsTheViewIsFreshAgain() {
    Report self = new Report(1, State.HOLDING, 5, 0, 0);
    Report other = new Report(0, State.HOLDING, 5, 0, 0);
    Decision lost = coordinator.decide(self, 0, SETTLED, 2, List.of(new Heard(other, 0)), NOW);
    assertFalse(lost.coordinated());
    assertTrue(lost.prober());
    Decision back = coordinator.decide(self, 0, SETTLED, 2, List.of(new Heard(other, NOW)), NOW);
    assertTrue(back.coordinated());
    assertFalse(back.prober(), "node 0 probes for both");
    assertEquals(0.5, back.share());
  }

  @Property(tries = 300)
  boolean aWholeClusterThatStartsHoldingAtOnce_probesFromOneNode_beforeItHearsOfTheOthers(
      @ForAll @IntRange(min = 1, max = 150) int nodes,
      @ForAll @IntRange(min = 0, max = 999) int heldForMillis) {
    // every node holds, but has heard only the steady reports the others wrote before the outage
    int probers = 0;
    for (int i = 0; i < nodes; i++) {
      List<Heard> others = new ArrayList<>();
      for (int j = 0; j < nodes; j++) {
        if (j != i) {
          others.add(new Heard(new Report(j, State.STEADY, 0, 0, 0), NOW - 5 * SETTLE));
        }
      }
      Report self = new Report(i, State.HOLDING, 10, 0, 0);
      Decision d = coordinator.decide(self, 0, heldForMillis * 1_000_000L, nodes, others, NOW);
      if (d.prober()) {
        probers++;
        if (i != 0) {
          return false;
        }
      }
    }
    return probers == 1;
  }

  @Test
  void aSettledHolder_probesWhenTheSmallerIdsAreSteady() {
    Report self = new Report(5, State.HOLDING, 10, 0, 0);
    Heard steady = new Heard(new Report(1, State.STEADY, 0, 0, 0), NOW);
    assertFalse(coordinator.decide(self, 0, SETTLE - 1, 2, List.of(steady), NOW).prober());
    assertTrue(coordinator.decide(self, 0, SETTLE, 2, List.of(steady), NOW).prober());
  }

  @Test
  void aQuietNode_neverGoesStale_butABusyOneDoes() {
    Report self = new Report(1, State.HOLDING, 5, 0, 0);
    Report quiet = new Report(0, State.STEADY, 0, Double.POSITIVE_INFINITY, 0);
    assertTrue(
        coordinator.decide(self, 0, SETTLED, 2, List.of(new Heard(quiet, 0)), NOW).coordinated());
    Report busy = new Report(0, State.STEADY, 1, Double.POSITIVE_INFINITY, 0);
    assertFalse(
        coordinator.decide(self, 0, SETTLED, 2, List.of(new Heard(busy, 0)), NOW).coordinated());
  }

  @Test
  void aNodeWithNoActorWaiting_keepsASmallReserve() {
    Report idle = new Report(1, State.RAMPING, 0, 10, 0);
    Report busy = new Report(2, State.RAMPING, 1000, 90, 0);
    Decision d = coordinator.decide(idle, 0, SETTLED, 2, List.of(new Heard(busy, NOW)), NOW);
    // W = 1000, n = 2, reserve = 50: (0 + 50) / (1000 + 100), of the share and of the rates' sum
    assertEquals(50.0 / 1100, d.share(), 1e-12);
    assertEquals(100 * 50.0 / 1100, d.rate(), 1e-9);
  }

  @Test
  void invalidValues_areRejectedWithTheirName() {
    assertEquals(
        "staleAfterNanos must be > 0 but was 0",
        assertThrows(IllegalArgumentException.class, () -> new ClusterCoordinator(0, 0))
            .getMessage());
    assertEquals(
        "waiting must be >= 0 but was -1",
        assertThrows(IllegalArgumentException.class, () -> new Report(1, State.STEADY, -1, 0, 0))
            .getMessage());
    assertEquals(
        "members must be >= 1 but was 0",
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    coordinator.decide(new Report(1, State.STEADY, 0, 0, 0), 0, 0, 0, List.of(), 0))
            .getMessage());
  }
}
