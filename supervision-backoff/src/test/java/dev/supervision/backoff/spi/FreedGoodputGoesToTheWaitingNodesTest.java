package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.Test;

/**
 * A ramping node whose actors are all back passes on what the resource served it (its measured
 * goodput, never more than its rate) to the nodes whose actors wait, at most a step a round.
 */
final class FreedGoodputGoesToTheWaitingNodesTest {

  private static final long STALE = 2_000_000_000L;
  private static final long SETTLE = 1_000_000_000L;
  private static final long NOW = 10_000_000_000L;
  private static final long HOLD_OFF = 500_000_000L;
  private final ClusterCoordinator coordinator = new ClusterCoordinator(STALE, SETTLE, HOLD_OFF);

  private Decision decide(Report self, long sinceLoss, Heard... others) {
    return coordinator.decide(
        self, 1, SETTLE, sinceLoss, others.length + 1, 0, List.of(others), NOW);
  }

  @Test
  void theFreedGoodputRaisesTheWaitingNode_notTheIdleNodesRate() {
    Report self = new Report(1, State.RAMPING, 900, 390, 1, Double.NaN);
    Heard other = new Heard(new Report(2, State.RAMPING, 100, 10, 1, Double.NaN), NOW);
    // its actors are back; its rate grew to 400, the resource served it 150 at its last loss
    Heard done = new Heard(new Report(3, State.RAMPING, 0, 400, 1, 150), NOW);
    Decision d = decide(self, HOLD_OFF, other, done);
    // in use 390 + 10 (this node's part of it, 400 x 950 / 1100, is below its 390), freed 150;
    // W = 1000 over 2 nodes, reserve 50: 550 x 950 / 1100, below 1.25 x 390
    assertEquals(550 * 950.0 / 1100, d.rate(), 1e-9);
  }

  @Test
  void aRaiseByTheFreedGoodput_isAtMostAStepOfTheNodesOwnRate() {
    Report self = new Report(1, State.RAMPING, 900, 100, 1, Double.NaN);
    Heard other = new Heard(new Report(2, State.RAMPING, 100, 0, 1, Double.NaN), NOW);
    Heard done = new Heard(new Report(3, State.RAMPING, 0, 2_000, 1, 2_000), NOW);
    Decision d = decide(self, HOLD_OFF, other, done);
    assertEquals(ClusterCoordinator.FREED_STEP * 100, d.rate(), 1e-9);
  }

  @Test
  void aStepDoesNotHoldBackTheRaiseToThePartOfTheRatesInUse() {
    Report self = new Report(1, State.RAMPING, 900, 10, 1, Double.NaN);
    Heard other = new Heard(new Report(2, State.RAMPING, 100, 190, 1, Double.NaN), NOW);
    Heard done = new Heard(new Report(3, State.RAMPING, 0, 100, 1, 100), NOW);
    Decision d = decide(self, HOLD_OFF, other, done);
    // the part of the rates in use, 200 x 950 / 1100, is above 1.25 x 10: it is not capped
    assertEquals(200 * 950.0 / 1100, d.rate(), 1e-9);
  }

  @Test
  void noGoodputMeasured_aReportFromBeforeTheLoss_orANodeThatStillWaits_freesNothing() {
    Report self = new Report(1, State.RAMPING, 900, 300, 1, Double.NaN);
    Heard other = new Heard(new Report(2, State.RAMPING, 100, 100, 1, Double.NaN), NOW);
    double inUse = 400 * 950.0 / 1100;
    Heard unmeasured = new Heard(new Report(3, State.RAMPING, 0, 400, 1, Double.NaN), NOW);
    assertEquals(inUse, decide(self, HOLD_OFF, other, unmeasured).rate(), 1e-9);
    // heard 1 ns before this node's last loss: it describes the resource as it was
    Heard old = new Heard(new Report(3, State.RAMPING, 0, 400, 1, 150), NOW - HOLD_OFF - 1);
    assertEquals(inUse, decide(self, HOLD_OFF, other, old).rate(), 1e-9);
    Heard holding = new Heard(new Report(3, State.HOLDING, 0, 0, 1, 150), NOW);
    assertEquals(inUse, decide(self, HOLD_OFF, other, holding).rate(), 1e-9);
  }

  @Test
  void aReportHeardAtTheVeryInstantOfTheLoss_freesItsGoodput() {
    Report self = new Report(1, State.RAMPING, 900, 390, 1, Double.NaN);
    Heard other = new Heard(new Report(2, State.RAMPING, 100, 10, 1, Double.NaN), NOW);
    Heard done = new Heard(new Report(3, State.RAMPING, 0, 400, 1, 150), NOW - HOLD_OFF);
    // as in the first example: heard since the loss, so its 150 is freed
    assertEquals(550 * 950.0 / 1100, decide(self, HOLD_OFF, other, done).rate(), 1e-9);
  }

  @Test
  void withinTheHoldOffAfterALoss_theFreedGoodputRaisesNobody() {
    Report self = new Report(1, State.RAMPING, 900, 100, 1, Double.NaN);
    Heard done = new Heard(new Report(3, State.RAMPING, 0, 400, 1, 400), NOW);
    assertTrue(Double.isNaN(decide(self, HOLD_OFF - 1, done).rate()));
  }

  @Test
  void aNegativeGoodput_isRejectedWithItsName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new Report(1, State.RAMPING, 0, 1, 0, -1));
    assertTrue(e.getMessage().contains("goodput"), e.getMessage());
  }

  @Provide
  Arbitrary<List<Report>> clusters() {
    Arbitrary<Report> report =
        Combinators.combine(
                Arbitraries.of(State.class),
                Arbitraries.integers().between(0, 5_000).injectDuplicates(0.3),
                Arbitraries.doubles().between(0, 5_000),
                Arbitraries.doubles().between(0, 5_000).injectNull(0.3))
            .as(
                (s, w, r, g) ->
                    new Report(
                        0,
                        s,
                        w % 3 == 0 ? 0 : w,
                        s == State.HOLDING ? 0 : r,
                        1,
                        g == null ? Double.NaN : g));
    return report
        .list()
        .ofMinSize(1)
        .ofMaxSize(60)
        .map(
            l -> {
              List<Report> out = new ArrayList<>();
              for (int i = 0; i < l.size(); i++) {
                Report r = l.get(i);
                out.add(
                    new Report(
                        i * 7919L % 1_000_003L,
                        r.state(),
                        r.waiting(),
                        r.rate(),
                        r.backEpoch(),
                        r.goodput()));
              }
              return out;
            });
  }

  @Property(tries = 300)
  boolean theRaisesOfACommonView_addAtMostTheRatesInUseAndTheFreedGoodputs(
      @ForAll("clusters") List<Report> cluster) {
    double inUse = 0;
    double freed = 0;
    long waiting = 0;
    int nodes = 0;
    for (Report r : cluster) {
      if (r.state() == State.RAMPING && r.waiting() > 0) {
        inUse += r.rate();
        waiting += r.waiting();
        nodes++;
      } else if (r.state() == State.RAMPING && r.goodput() > 0) {
        freed += Math.min(r.rate(), r.goodput());
      }
    }
    double after = 0;
    for (Report self : cluster) {
      List<Heard> others = new ArrayList<>();
      for (Report r : cluster) {
        if (r != self) {
          others.add(new Heard(r, NOW));
        }
      }
      Decision d = coordinator.decide(self, 1, SETTLE, HOLD_OFF, cluster.size(), 0, others, NOW);
      boolean using = self.state() == State.RAMPING && self.waiting() > 0;
      if (!using) {
        if (!Double.isNaN(d.rate())) {
          return false; // only a node whose actors wait, and that ramps, is raised
        }
        continue;
      }
      double eps = 1e-9 * Math.max(1, inUse + freed);
      double part = ClusterCoordinator.part(inUse, self.waiting(), waiting, nodes);
      double withFreed = ClusterCoordinator.part(inUse + freed, self.waiting(), waiting, nodes);
      double expected =
          Math.max(part, Math.min(withFreed, ClusterCoordinator.FREED_STEP * self.rate()));
      double raised = Double.isNaN(d.rate()) ? self.rate() : d.rate();
      if (Double.isNaN(d.rate())
          ? expected > self.rate() + eps
          : Math.abs(raised - expected) > eps) {
        return false;
      }
      after += raised;
    }
    // every raise is at most a part of the rates in use and the freed goodputs, parts that sum to
    // them: raising adds at most that sum to the rates the nodes had
    return after <= inUse + (inUse + freed) + 1e-6 * Math.max(1, inUse + freed);
  }
}
