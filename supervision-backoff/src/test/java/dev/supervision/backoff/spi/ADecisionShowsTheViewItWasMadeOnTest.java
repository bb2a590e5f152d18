package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator.Decision;
import dev.supervision.backoff.spi.ClusterCoordinator.Heard;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A decision says what it saw: the nodes whose reports counted (fresh, or quiet of any age; this
 * node included) and the actors waiting over them, on the fallback as when coordinated. These
 * figures are what the status and the meters show of the cluster; they change no decision.
 */
final class ADecisionShowsTheViewItWasMadeOnTest {

  private static final long STALE = 2_000_000_000L;
  private static final long NOW = 10_000_000_000L;
  private final ClusterCoordinator coordinator = new ClusterCoordinator(STALE, 0, 0);

  private static Heard heard(long node, State state, int waiting, long receivedAt) {
    return new Heard(
        new Report(node, state, waiting, state == State.HOLDING ? 0 : 50, 0, Double.NaN),
        receivedAt);
  }

  @Test
  void aStaleLineIsOutOfTheView_aQuietOneIsIn_andTheViewIsCompleteOnceTheStaleOneIsHeardAgain() {
    Report self = new Report(1, State.HOLDING, 5, 0, 0, Double.NaN);
    Heard fresh = heard(2, State.RAMPING, 10, NOW - STALE / 2);
    Heard quietAndOld = heard(3, State.STEADY, 0, 0);
    Heard stale = heard(4, State.HOLDING, 7, NOW - STALE - 1);
    Decision alone =
        coordinator.decide(
            self, 0, STALE, Long.MAX_VALUE, 4, 0, List.of(fresh, quietAndOld, stale), NOW);
    assertFalse(alone.coordinated());
    assertEquals(3, alone.inView(), "this node, the fresh line and the quiet one");
    assertEquals(15, alone.clusterWaiting(), "5 here, 10 on the fresh node; the stale 7 not");

    Heard again = heard(4, State.HOLDING, 7, NOW);
    Decision together =
        coordinator.decide(
            self, 0, STALE, Long.MAX_VALUE, 4, 0, List.of(fresh, quietAndOld, again), NOW);
    assertTrue(together.coordinated());
    assertEquals(4, together.inView());
    assertEquals(22, together.clusterWaiting());
  }
}
