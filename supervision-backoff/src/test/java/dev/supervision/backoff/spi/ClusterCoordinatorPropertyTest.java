package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator.Decision;
import dev.supervision.backoff.spi.ClusterCoordinator.Heard;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
  private final ClusterCoordinator coordinator = new ClusterCoordinator(STALE, SETTLE, 0);

  /** A decision of a node that has not measured a loss lately and knows of no joining member. */
  private static Decision decide(
      ClusterCoordinator c,
      Report self,
      long heldAtEpoch,
      long heldForNanos,
      int members,
      Collection<Heard> others,
      long nowNanos) {
    return c.decide(self, heldAtEpoch, heldForNanos, Long.MAX_VALUE, members, 0, others, nowNanos);
  }

  @Provide
  Arbitrary<List<Report>> clusters() {
    Arbitrary<Report> report =
        Combinators.combine(
                Arbitraries.of(State.class),
                Arbitraries.integers().between(0, 50_000),
                Arbitraries.doubles().between(0, 5_000),
                Arbitraries.longs().between(0, 5))
            .as((s, w, r, b) -> new Report(0, s, w, s == State.HOLDING ? 0 : r, b, Double.NaN));
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
                        i * 7919L % 1_000_003L,
                        r.state(),
                        r.waiting(),
                        r.rate(),
                        r.backEpoch(),
                        Double.NaN));
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
      out.add(decide(coordinator, self, heldAt, SETTLED, cluster.size(), others, NOW));
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

  private static boolean using(Report r) {
    return r.state() == State.RAMPING && r.waiting() > 0;
  }

  @Property(tries = 300)
  boolean raising_givesANodeItsPart_andThePartsOfACommonViewSumToTheRatesInUse(
      @ForAll("clusters") List<Report> cluster) {
    double inUse = 0;
    long waiting = 0;
    int nodes = 0;
    for (Report r : cluster) {
      if (using(r)) {
        inUse += r.rate();
        waiting += r.waiting();
        nodes++;
      }
    }
    List<Decision> ds = decideAll(cluster, 0);
    double parts = 0;
    double after = 0;
    for (int i = 0; i < ds.size(); i++) {
      Report r = cluster.get(i);
      double raise = ds.get(i).rate();
      if (!using(r)) {
        if (!Double.isNaN(raise)) {
          return false; // only a node whose actors wait, and that ramps, is raised
        }
        continue;
      }
      double part = ClusterCoordinator.part(inUse, r.waiting(), waiting, nodes);
      parts += part;
      double eps = 1e-9 * Math.max(1, inUse);
      if (Double.isNaN(raise)
          ? part > r.rate() + eps
          : !(raise > r.rate() && Math.abs(raise - part) <= eps)) {
        return false;
      }
      after += Double.isNaN(raise) ? r.rate() : raise;
    }
    // the parts move the summed rate to where the actors wait; raising adds at most that sum
    return Math.abs(parts - inUse) <= 1e-9 * Math.max(1, inUse) && after <= 2 * inUse + 1e-6;
  }

  @Property(tries = 300)
  boolean afterALoss_noNodeIsRaised_untilTheHoldOffHasPassed(
      @ForAll("clusters") List<Report> cluster,
      @ForAll @IntRange(min = 0, max = 499) int sinceLossMillis) {
    ClusterCoordinator c = new ClusterCoordinator(STALE, SETTLE, 500_000_000L);
    for (Report self : cluster) {
      List<Heard> others = new ArrayList<>();
      for (Report r : cluster) {
        if (r != self) {
          others.add(new Heard(r, NOW));
        }
      }
      Decision d =
          c.decide(self, 0, SETTLED, sinceLossMillis * 1_000_000L, cluster.size(), 0, others, NOW);
      if (!Double.isNaN(d.rate())) {
        return false; // every node keeps the rate its own goodput cut it to
      }
    }
    return true;
  }

  @Property(tries = 300)
  boolean sharesFollowDemand_andTheRaisedRatesToo(
      @ForAll @IntRange(min = 2, max = 100) int nodes,
      @ForAll @IntRange(min = 1, max = 10_000) int busy,
      @ForAll @IntRange(min = 0, max = 10_000) int other) {
    // node 0 has `busy` actors waiting, the others `other` each; all ramp at the same rate
    List<Report> cluster = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      cluster.add(new Report(i, State.RAMPING, i == 0 ? busy : other, 50, 1, Double.NaN));
    }
    List<Decision> ds = decideAll(cluster, 1);
    Decision d0 = ds.get(0);
    Decision d1 = ds.get(1);
    if (busy > other) {
      // with nobody else waiting, node 0's part is its own rate: nothing to raise
      boolean raised = other == 0 ? Double.isNaN(d0.rate()) : d0.rate() > 50;
      return d0.share() > d1.share() && raised && Double.isNaN(d1.rate());
    }
    return busy == other ? d0.share() == d1.share() : d0.share() < d1.share();
  }

  @Test
  void aRampingNodeThatKnowsNoOtherRamp_keepsItsRate() {
    Report self = new Report(1, State.RAMPING, 10, 40, 1, Double.NaN);
    Report holding = new Report(2, State.HOLDING, 1000, 0, 0, Double.NaN);
    Decision d = decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(holding, NOW)), NOW);
    assertTrue(Double.isNaN(d.rate()), "its part is its own rate: nothing to raise");
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
              ? new Report(i, State.RAMPING, 10, 5, back, Double.NaN)
              : new Report(i, State.HOLDING, 10, 0, known, Double.NaN));
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
    Report self = new Report(1, State.HOLDING, 5, 0, back, Double.NaN);
    Report other = new Report(2, State.RAMPING, 5, 50, back, Double.NaN);
    Decision d = decide(coordinator, self, back, SETTLED, 2, List.of(new Heard(other, NOW)), NOW);
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
    Decision d = decide(coordinator, self, 0, SETTLED, cluster.size(), others, NOW);
    return !d.coordinated()
        && d.share() == 1.0 / cluster.size()
        && d.prober()
        && d.probeMembers() == cluster.size()
        && Double.isNaN(d.rate());
  }

  @Test
  void coordinationComesBack_assoonAsTheViewIsFreshAgain() {
    Report self = new Report(1, State.HOLDING, 5, 0, 0, Double.NaN);
    Report other = new Report(0, State.HOLDING, 5, 0, 0, Double.NaN);
    Decision lost = decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(other, 0)), NOW);
    assertFalse(lost.coordinated());
    assertTrue(lost.prober());
    Decision back = decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(other, NOW)), NOW);
    assertTrue(back.coordinated());
    assertFalse(back.prober(), "node 0 probes for both");
    assertEquals(0.5, back.share());
  }

  @Test
  void aHoldingNodeWithNoActorWaiting_isNotTheProber_evenWithTheSmallestId() {
    // it would grant no probe: if it were chosen, nobody would probe for the cluster
    Report idle = new Report(0, State.HOLDING, 0, 0, 0, Double.NaN);
    Report waiting = new Report(1, State.HOLDING, 5, 0, 0, Double.NaN);
    assertFalse(
        decide(coordinator, idle, 0, SETTLED, 2, List.of(new Heard(waiting, NOW)), NOW).prober());
    assertTrue(
        decide(coordinator, waiting, 0, SETTLED, 2, List.of(new Heard(idle, NOW)), NOW).prober(),
        "the node whose actors wait probes");
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
          others.add(new Heard(new Report(j, State.STEADY, 0, 0, 0, Double.NaN), NOW - 5 * SETTLE));
        }
      }
      Report self = new Report(i, State.HOLDING, 10, 0, 0, Double.NaN);
      Decision d = decide(coordinator, self, 0, heldForMillis * 1_000_000L, nodes, others, NOW);
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
    Report self = new Report(5, State.HOLDING, 10, 0, 0, Double.NaN);
    Heard steady = new Heard(new Report(1, State.STEADY, 0, 0, 0, Double.NaN), NOW);
    assertFalse(decide(coordinator, self, 0, SETTLE - 1, 2, List.of(steady), NOW).prober());
    assertTrue(decide(coordinator, self, 0, SETTLE, 2, List.of(steady), NOW).prober());
  }

  @Test
  void aQuietNode_neverGoesStale_butABusyOneDoes() {
    Report self = new Report(1, State.HOLDING, 5, 0, 0, Double.NaN);
    Report quiet = new Report(0, State.STEADY, 0, Double.POSITIVE_INFINITY, 0, Double.NaN);
    assertTrue(
        decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(quiet, 0)), NOW).coordinated());
    Report busy = new Report(0, State.STEADY, 1, Double.POSITIVE_INFINITY, 0, Double.NaN);
    assertFalse(
        decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(busy, 0)), NOW).coordinated());
  }

  @Test
  void aNodeWithNoActorWaiting_keepsASmallReserve() {
    Report idle = new Report(1, State.RAMPING, 0, 10, 0, Double.NaN);
    Report busy = new Report(2, State.RAMPING, 1000, 90, 0, Double.NaN);
    Decision d = decide(coordinator, idle, 0, SETTLED, 2, List.of(new Heard(busy, NOW)), NOW);
    // W = 1000, n = 2, reserve = 50: (0 + 50) / (1000 + 100)
    assertEquals(50.0 / 1100, d.share(), 1e-12);
    assertTrue(Double.isNaN(d.rate()), "a node with nothing waiting is not raised");
    assertTrue(d.stayRamping(), "but stays ramping while the other node's actors wait");
  }

  @Test
  void aNodeThatStartedLate_isRaisedToItsPartOfTheRatesInUse() {
    Report late = new Report(1, State.RAMPING, 900, 10, 1, Double.NaN);
    Report early = new Report(2, State.RAMPING, 100, 90, 1, Double.NaN);
    Decision d = decide(coordinator, late, 1, SETTLED, 2, List.of(new Heard(early, NOW)), NOW);
    // sum 100, W = 1000, n = 2, reserve = 50: 100 x (900 + 50) / 1100
    assertEquals(100 * 950.0 / 1100, d.rate(), 1e-9);
    Decision e = decide(coordinator, early, 1, SETTLED, 2, List.of(new Heard(late, NOW)), NOW);
    assertTrue(Double.isNaN(e.rate()), "never lowered: 90 is above its part");
  }

  @Test
  void aJoiningMemberWithoutALine_keepsTheOthersCoordinated() {
    Report self = new Report(1, State.RAMPING, 100, 50, 1, Double.NaN);
    Heard other = new Heard(new Report(2, State.RAMPING, 100, 50, 1, Double.NaN), NOW);
    // three members: this node, node 2, and a node that joined and has not written its line yet
    Decision joining = coordinator.decide(self, 1, SETTLED, 0, 3, 1, List.of(other), NOW);
    assertTrue(joining.coordinated());
    Decision missing = coordinator.decide(self, 1, SETTLED, 0, 3, 0, List.of(other), NOW);
    assertFalse(missing.coordinated(), "a member without a line that is not joining: fallback");
  }

  @Test
  void aSteadyNodeThatHasNotRampedOnTheNews_joinsTheRamp_andARecoveredOneDoesNot() {
    Report steady = new Report(3, State.STEADY, 0, Double.POSITIVE_INFINITY, 0, Double.NaN);
    Heard ramping = new Heard(new Report(1, State.RAMPING, 500, 100, 1, Double.NaN), NOW);
    Decision joiner = decide(coordinator, steady, 0, 0, 2, List.of(ramping), NOW);
    assertTrue(joiner.resume(), "the news is newer than anything it ramped on");
    assertTrue(joiner.stayRamping());
    Report recovered = new Report(3, State.STEADY, 0, Double.POSITIVE_INFINITY, 1, Double.NaN);
    assertFalse(decide(coordinator, recovered, 1, 0, 2, List.of(ramping), NOW).resume());
    Heard idle = new Heard(new Report(1, State.RAMPING, 0, 100, 1, Double.NaN), NOW);
    assertFalse(
        decide(coordinator, steady, 0, 0, 2, List.of(idle), NOW).resume(),
        "nobody waits: nothing to join");
  }

  @Test
  void theLocalState_raisesTheEpochOnItsOwnProbe_notOnAResume_andSeesItsLosses() {
    ClusterCoordinator.Local own = new ClusterCoordinator.Local(1);
    own.observe(State.HOLDING, 10, 0, Double.NaN, 0);
    assertEquals(1, own.observe(State.RAMPING, 10, 100, Double.NaN, SETTLE).backEpoch());
    ClusterCoordinator.Local told = new ClusterCoordinator.Local(2);
    Report holding = told.observe(State.HOLDING, 10, 0, Double.NaN, 0);
    Report finder = new Report(1, State.RAMPING, 10, 100, 1, Double.NaN);
    Decision d = told.decide(coordinator, holding, 2, 0, List.of(new Heard(finder, 1)), 1);
    assertTrue(d.resume());
    assertEquals(1, told.observe(State.RAMPING, 10, 50, Double.NaN, 2).backEpoch());
    // a cut (the rate fell, a new goodput) starts the hold-off
    ClusterCoordinator c = new ClusterCoordinator(STALE, SETTLE, 500);
    Report cut = told.observe(State.RAMPING, 10, 20, 22.2, 100);
    Report early = new Report(1, State.RAMPING, 10, 500, 1, Double.NaN);
    assertTrue(Double.isNaN(told.decide(c, cut, 2, 0, List.of(new Heard(early, 100)), 100).rate()));
    Report later = told.observe(State.RAMPING, 10, 20, 22.2, 700);
    assertEquals(
        260, told.decide(c, later, 2, 0, List.of(new Heard(early, 700)), 700).rate(), 1e-9);
  }

  @Test
  void theTiming_isDerivedFromTheEnginesIntervals() {
    ClusterCoordinator.Timing t = ClusterCoordinator.Timing.defaults();
    assertEquals(Duration.ofMillis(200), t.round());
    assertEquals(Duration.ofSeconds(1), t.heartbeat());
    assertEquals(0, t.settleNanos(1));
    assertEquals(1_900_000_000L, t.settleNanos(10)); // 3 delta ticks + 500 ms + 200 ms
    assertEquals(4_700_000_000L, t.settleNanos(100)); // 10 ticks
    assertEquals(4_900_000_000L, t.staleAfterNanos(10));
    assertEquals(7_700_000_000L, t.staleAfterNanos(100));
    assertEquals(500_000_000L, t.raiseAfterLossNanos());
    ClusterCoordinator.Timing fast =
        ClusterCoordinator.Timing.of(
            Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(150));
    assertEquals(Duration.ofMillis(150), fast.round(), "at most one notification");
    assertEquals(300_000_000L, fast.raiseAfterLossNanos(), "a delta interval and a slice");
    assertEquals(
        500_000_000L,
        ClusterCoordinator.Timing.of(
                Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofMillis(100))
            .raiseAfterLossNanos(),
        "a delta interval and a slice");
    assertEquals(
        1_000_000_000L,
        ClusterCoordinator.Timing.of(
                Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofSeconds(1))
            .raiseAfterLossNanos(),
        "at least one notification");
    assertEquals(
        150_000_000L,
        new ClusterCoordinator.Timing(
                Duration.ofMillis(150),
                Duration.ofMillis(750),
                Duration.ofMillis(200),
                Duration.ofMillis(150))
            .raiseAfterLossNanos(),
        "given without a hold-off: one notification");
    assertEquals(
        "raiseAfterLoss must be > 0 but was PT0S",
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    new ClusterCoordinator.Timing(
                        Duration.ofMillis(200),
                        Duration.ofSeconds(1),
                        Duration.ofMillis(400),
                        Duration.ofMillis(500),
                        Duration.ZERO))
            .getMessage());
    assertEquals(
        "notifyInterval must be > 0 but was PT0S",
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    ClusterCoordinator.Timing.of(
                        Duration.ofMillis(100), Duration.ofMillis(400), Duration.ZERO))
            .getMessage());
  }

  @Test
  void aFreshReportOfANodeNotCounted_countsAsAMembers_soPassTheCountedMembersOnly() {
    Report self = new Report(1, State.STEADY, 0, 100, 0, Double.NaN);
    Report stranger = new Report(7, State.HOLDING, 30, 0, 4, Double.NaN); // not among the 2 members
    Decision d = decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(stranger, NOW)), NOW);
    assertTrue(d.coordinated(), "it stands in for the missing member's report");
    assertEquals(2, d.inView());
    assertEquals(30, d.clusterWaiting());
    assertFalse(d.prober(), "the stranger holds with actors waiting: it probes");
    assertEquals(4, d.backEpoch());
    Report third = new Report(9, State.STEADY, 0, 100, 0, Double.NaN);
    Decision wider =
        decide(
            coordinator,
            self,
            0,
            SETTLED,
            2,
            List.of(new Heard(stranger, NOW), new Heard(third, NOW)),
            NOW);
    assertEquals(3, wider.inView());
    double reserve = Math.max(1.0, 30 / (10.0 * 3));
    assertEquals(reserve / (30 + 3 * reserve), wider.share(), 1e-12, "shares count 3 nodes");
    Decision own =
        decide(coordinator, self, 0, SETTLED, 1, List.of(new Heard(self, NOW - STALE - 1)), NOW);
    assertEquals(1, own.inView(), "its own report counts for nothing but the epoch");
  }

  @Test
  void invalidValues_areRejectedWithTheirName() {
    assertEquals(
        "staleAfterNanos must be > 0 but was 0",
        assertThrows(IllegalArgumentException.class, () -> new ClusterCoordinator(0, 0, 0))
            .getMessage());
    assertEquals(
        "waiting must be >= 0 but was -1",
        assertThrows(
                IllegalArgumentException.class,
                () -> new Report(1, State.STEADY, -1, 0, 0, Double.NaN))
            .getMessage());
    assertEquals(
        "members must be >= 1 but was 0",
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    decide(
                        coordinator,
                        new Report(1, State.STEADY, 0, 0, 0, Double.NaN),
                        0,
                        0,
                        0,
                        List.of(),
                        0))
            .getMessage());
  }

  @Test
  void theTimingsCoordinator_carriesItsWindows_andShowsThemInToString() {
    ClusterCoordinator c = ClusterCoordinator.Timing.defaults().coordinator(10);
    assertEquals(4_900_000_000L, c.staleAfterNanos());
    assertEquals(1_900_000_000L, c.settleNanos());
    assertEquals(500_000_000L, c.raiseAfterLossNanos());
    assertEquals(
        "ClusterCoordinator{staleAfterNanos=4900000000, settleNanos=1900000000,"
            + " raiseAfterLossNanos=500000000}",
        c.toString());
  }

  @Test
  void theRound_isTwoSlices_atMostOneNotification_andAtLeastOneSlice() {
    ClusterCoordinator.Timing slow =
        ClusterCoordinator.Timing.of(
            Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofMillis(50));
    assertEquals(Duration.ofMillis(100), slow.round(), "a notification below one slice");
    assertEquals(Duration.ofMillis(500), slow.heartbeat());
    ClusterCoordinator.Timing exact =
        ClusterCoordinator.Timing.of(
            Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofMillis(200));
    assertEquals(Duration.ofMillis(200), exact.round());
    // two nodes: one delta tick reaches the other; 400 + 200 + 200 ms
    assertEquals(800_000_000L, exact.settleNanos(2));
    assertEquals(800_000_000L + 3_000_000_000L, exact.staleAfterNanos(2));
  }

  @Test
  void oneDeltaTick_reachesPekkosSliceOfTheOtherNodes() {
    assertEquals(1, ClusterCoordinator.Timing.sliceSize(1));
    assertEquals(2, ClusterCoordinator.Timing.sliceSize(2));
    assertEquals(2, ClusterCoordinator.Timing.sliceSize(9));
    assertEquals(3, ClusterCoordinator.Timing.sliceSize(10));
    assertEquals(5, ClusterCoordinator.Timing.sliceSize(20));
    assertEquals(10, ClusterCoordinator.Timing.sliceSize(100));
    // 20 nodes: 19 others, 5 per tick: 4 ticks of 400 ms, + 500 ms + 200 ms
    assertEquals(2_300_000_000L, ClusterCoordinator.Timing.defaults().settleNanos(20));
  }

  @Test
  void aReportExactlyAsOldAsTheStaleWindow_stillCounts() {
    Report self = new Report(1, State.HOLDING, 5, 0, 0, Double.NaN);
    Report busy = new Report(0, State.HOLDING, 5, 0, 0, Double.NaN);
    assertTrue(
        decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(busy, NOW - STALE)), NOW)
            .coordinated());
    assertFalse(
        decide(coordinator, self, 0, SETTLED, 2, List.of(new Heard(busy, NOW - STALE - 1)), NOW)
            .coordinated());
  }

  @Test
  void aReportHeardAtTheLossCounts_andTheHoldOffEndsExactlyAtItsLength() {
    ClusterCoordinator c = new ClusterCoordinator(STALE, SETTLE, 500);
    Report self = new Report(1, State.RAMPING, 900, 10, 1, Double.NaN);
    Report early = new Report(2, State.RAMPING, 100, 90, 1, Double.NaN);
    // the loss was 500 ns ago, and the other's report arrived then: it counts, and so does the
    // raise
    Decision at = c.decide(self, 1, SETTLED, 500, 2, 0, List.of(new Heard(early, NOW - 500)), NOW);
    assertEquals(100 * 950.0 / 1100, at.rate(), 1e-9);
    Decision before =
        c.decide(self, 1, SETTLED, 500, 2, 0, List.of(new Heard(early, NOW - 501)), NOW);
    assertTrue(Double.isNaN(before.rate()), "heard before the loss: only its own rate counts");
    Decision holdOff = c.decide(self, 1, SETTLED, 499, 2, 0, List.of(new Heard(early, NOW)), NOW);
    assertTrue(Double.isNaN(holdOff.rate()));
  }

  @Test
  void aRateAlreadyAtItsPart_isNotRaised() {
    // two nodes with the same demand and the same rate: each one's part is its own rate
    Report self = new Report(1, State.RAMPING, 100, 50, 1, Double.NaN);
    Report other = new Report(2, State.RAMPING, 100, 50, 1, Double.NaN);
    Decision d = decide(coordinator, self, 1, SETTLED, 2, List.of(new Heard(other, NOW)), NOW);
    assertTrue(d.coordinated());
    assertEquals(0.5, d.share());
    assertTrue(Double.isNaN(d.rate()));
    assertTrue(d.stayRamping(), "the other node ramps with actors waiting");
  }

  @Test
  void theLocalState_takesTheHighestEpochItHears() {
    ClusterCoordinator.Local local = new ClusterCoordinator.Local(1);
    assertEquals(0, local.backEpoch());
    local.heard(3);
    local.heard(2);
    assertEquals(3, local.backEpoch());
    assertEquals(3, local.observe(State.STEADY, 0, 1, Double.NaN, 0).backEpoch());
    assertEquals(5, ClusterCoordinator.nextBackEpoch(4));
  }

  @Test
  void theLocalState_reportsAStateWithoutTakingItAsAnObservation() {
    ClusterCoordinator.Local local = new ClusterCoordinator.Local(4);
    local.observe(State.RAMPING, 10, 200, Double.NaN, 0);
    local.heard(2);
    // what a node publishes after a decision raised its rate: its epoch, nothing taken as a loss
    assertEquals(
        new Report(4, State.RAMPING, 10, 300, 2, Double.NaN),
        local.report(State.RAMPING, 10, 300, Double.NaN));
    assertEquals(
        new Report(4, State.HOLDING, 0, 0, 2, Double.NaN),
        local.report(State.HOLDING, -1, -5, Double.NaN));
    // the reported 300 is not the last observed rate: 250 after 200 is no loss, so 1.1 s after
    // the ramp started (the hold-off is 0.5 s) the node is raised to its half of 250 + 1,000
    Report self = local.observe(State.RAMPING, 10, 250, Double.NaN, 1_000_000_000L);
    Heard other = new Heard(new Report(9, State.RAMPING, 10, 1000, 2, Double.NaN), 1_050_000_000L);
    Decision d =
        local.decide(
            new ClusterCoordinator(5_000_000_000L, 0, 500_000_000L),
            self,
            2,
            0,
            List.of(other),
            1_100_000_000L);
    assertEquals(625, d.rate(), 1e-9);
  }

  @Test
  void everyValueOutOfRange_isRejectedWithItsName_andTheEdgesAreAccepted() {
    assertEquals(
        "settleNanos must be >= 0 but was -1",
        assertThrows(IllegalArgumentException.class, () -> new ClusterCoordinator(1, -1, 0))
            .getMessage());
    assertEquals(
        "raiseAfterLossNanos must be >= 0 but was -1",
        assertThrows(IllegalArgumentException.class, () -> new ClusterCoordinator(1, 0, -1))
            .getMessage());
    ClusterCoordinator edges = new ClusterCoordinator(1, 0, 0);
    assertEquals(1, edges.staleAfterNanos());
    assertEquals(0, edges.settleNanos());
    assertEquals(
        "rate must be >= 0 but was -1.0",
        assertThrows(
                IllegalArgumentException.class,
                () -> new Report(1, State.STEADY, 0, -1, 0, Double.NaN))
            .getMessage());
    assertEquals(
        "backEpoch must be >= 0 but was -1",
        assertThrows(
                IllegalArgumentException.class,
                () -> new Report(1, State.STEADY, 0, 0, -1, Double.NaN))
            .getMessage());
    new Report(1, State.STEADY, 0, 0, 0, Double.NaN);
    assertEquals(
        "state must not be null",
        assertThrows(NullPointerException.class, () -> new Report(1, null, 0, 0, 0, Double.NaN))
            .getMessage());
    assertEquals(
        "report must not be null",
        assertThrows(NullPointerException.class, () -> new Heard(null, 0)).getMessage());
    Report self = new Report(1, State.STEADY, 0, 0, 0, Double.NaN);
    assertEquals(
        "joining must be >= 0 but was -1",
        assertThrows(
                IllegalArgumentException.class,
                () -> coordinator.decide(self, 0, 0, 0, 1, -1, List.of(), 0))
            .getMessage());
    assertTrue(coordinator.decide(self, 0, 0, 0, 1, 0, List.of(), 0).coordinated());
    assertEquals(
        "round must be > 0 but was PT0S",
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    new ClusterCoordinator.Timing(
                        Duration.ZERO,
                        Duration.ofSeconds(1),
                        Duration.ofMillis(400),
                        Duration.ofMillis(500)))
            .getMessage());
    assertEquals(
        "slice must not be null",
        assertThrows(
                NullPointerException.class,
                () ->
                    ClusterCoordinator.Timing.of(
                        null, Duration.ofMillis(400), Duration.ofMillis(500)))
            .getMessage());
  }

  @Test
  void aViewWithMoreNodesThanTheMembersCounted_sharesAmongAllItSees() {
    Report self = new Report(1, State.STEADY, 0, Double.POSITIVE_INFINITY, 0, Double.NaN);
    List<Heard> others =
        List.of(
            new Heard(new Report(2, State.STEADY, 0, Double.POSITIVE_INFINITY, 0, Double.NaN), NOW),
            new Heard(
                new Report(3, State.STEADY, 0, Double.POSITIVE_INFINITY, 0, Double.NaN), NOW));
    Decision d = decide(coordinator, self, 0, SETTLED, 2, others, NOW);
    assertTrue(d.coordinated());
    assertEquals(1.0 / 3, d.share(), 1e-12, "nobody waits: 1/n of the three in view");
  }

  @Test
  void theLocalState_countsTheHoldFromWhenItStarted() {
    ClusterCoordinator.Local local = new ClusterCoordinator.Local(5);
    Report self = local.observe(State.HOLDING, 10, 0, Double.NaN, 1_000);
    Heard steady = new Heard(new Report(1, State.STEADY, 0, 0, 0, Double.NaN), 1_000);
    assertFalse(
        local.decide(coordinator, self, 2, 0, List.of(steady), 1_000 + SETTLE - 1).prober(),
        "still settling: node 1 may be holding too");
    assertTrue(local.decide(coordinator, self, 2, 0, List.of(steady), 1_000 + SETTLE).prober());
  }

  @Test
  void theLocalState_aNodeThatRampedOnTheNewsAndRecovered_isNotResumedByIt() {
    ClusterCoordinator.Local told = new ClusterCoordinator.Local(2);
    Report holding = told.observe(State.HOLDING, 10, 0, Double.NaN, 0);
    Report finder = new Report(1, State.RAMPING, 10, 100, 1, Double.NaN);
    assertTrue(told.decide(coordinator, holding, 2, 0, List.of(new Heard(finder, 1)), 1).resume());
    told.observe(State.RAMPING, 10, 50, Double.NaN, 2);
    Report steady = told.observe(State.STEADY, 0, Double.POSITIVE_INFINITY, Double.NaN, 3);
    assertFalse(
        told.decide(coordinator, steady, 2, 0, List.of(new Heard(finder, 3)), 3).resume(),
        "it ramped on epoch 1 already");
  }

  @Test
  void theLocalState_holdsOffAfterARateThatFellWhileRamping_withNoNewGoodput() {
    ClusterCoordinator c = new ClusterCoordinator(STALE, SETTLE, 500);
    ClusterCoordinator.Local local = new ClusterCoordinator.Local(2);
    Report other = new Report(1, State.RAMPING, 10, 500, 1, Double.NaN);
    local.observe(State.HOLDING, 10, 0, Double.NaN, 0);
    local.observe(State.RAMPING, 10, 20, Double.NaN, 1_000);
    Report on = local.observe(State.RAMPING, 10, 20, Double.NaN, 1_600);
    assertEquals(
        260, local.decide(c, on, 2, 0, List.of(new Heard(other, 1_600)), 1_600).rate(), 1e-9);
    Report fell = local.observe(State.RAMPING, 10, 19, Double.NaN, 2_000);
    assertTrue(
        Double.isNaN(local.decide(c, fell, 2, 0, List.of(new Heard(other, 2_100)), 2_100).rate()),
        "100 ns after the rate fell");
  }

  @Test
  void theLocalState_holdsOffAfterARampStart_andAfterANewGoodput_notAfterTheSameOne() {
    ClusterCoordinator c = new ClusterCoordinator(STALE, SETTLE, 500);
    ClusterCoordinator.Local local = new ClusterCoordinator.Local(2);
    Report other = new Report(1, State.RAMPING, 10, 500, 1, Double.NaN);
    local.observe(State.HOLDING, 10, 0, Double.NaN, 0);
    Report start = local.observe(State.RAMPING, 10, 20, Double.NaN, 1_000);
    assertTrue(
        Double.isNaN(local.decide(c, start, 2, 0, List.of(new Heard(other, 1_200)), 1_200).rate()),
        "200 ns after the ramp started");
    Report on = local.observe(State.RAMPING, 10, 20, Double.NaN, 1_600);
    // 520 in use, W = 20, n = 2, reserve 1: 520 x 11 / 22
    assertEquals(
        260, local.decide(c, on, 2, 0, List.of(new Heard(other, 1_600)), 1_600).rate(), 1e-9);
    Report loss = local.observe(State.RAMPING, 10, 20, 5.0, 2_000); // same rate, a new goodput
    assertTrue(
        Double.isNaN(local.decide(c, loss, 2, 0, List.of(new Heard(other, 2_100)), 2_100).rate()));
    Report same = local.observe(State.RAMPING, 10, 20, 5.0, 2_600);
    assertEquals(
        260, local.decide(c, same, 2, 0, List.of(new Heard(other, 2_600)), 2_600).rate(), 1e-9);
  }

  @Test
  void aTimingRejectsEveryIntervalThatIsNotPositive_namingIt() {
    Duration one = Duration.ofSeconds(1);
    assertEquals(
        "heartbeat must be > 0 but was PT0S",
        assertThrows(
                IllegalArgumentException.class,
                () -> new ClusterCoordinator.Timing(one, Duration.ZERO, one, one))
            .getMessage());
    assertEquals(
        "deltaInterval must be > 0 but was PT-1S",
        assertThrows(
                IllegalArgumentException.class,
                () -> new ClusterCoordinator.Timing(one, one, one.negated(), one))
            .getMessage());
    assertEquals(
        "notifyInterval must be > 0 but was PT0S",
        assertThrows(
                IllegalArgumentException.class,
                () -> new ClusterCoordinator.Timing(one, one, one, Duration.ZERO))
            .getMessage());
    assertEquals(
        "slice must be > 0 but was PT0S",
        assertThrows(
                IllegalArgumentException.class,
                () -> ClusterCoordinator.Timing.of(Duration.ZERO, one, one))
            .getMessage());
  }

  @Test
  void aSettledHolder_probes_whenTheSmallerIdHoldsWithNoActorWaiting() {
    Report self = new Report(5, State.HOLDING, 10, 0, 0, Double.NaN);
    Heard idle = new Heard(new Report(1, State.HOLDING, 0, 0, 0, Double.NaN), NOW);
    assertTrue(decide(coordinator, self, 0, SETTLED, 2, List.of(idle), NOW).prober());
  }
}
