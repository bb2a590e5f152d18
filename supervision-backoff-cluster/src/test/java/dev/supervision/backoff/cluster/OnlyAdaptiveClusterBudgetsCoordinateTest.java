package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorNotFound;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The gate of a cluster-wide adaptive budget runs the coordination that replicates its state to
 * the other nodes; the gate of a cluster-wide fixed budget, which needs only its share of the
 * membership, runs none (no replicated entry, no polling of the gate).
 */
final class OnlyAdaptiveClusterBudgetsCoordinateTest {

  static final ActorTestKit testKit = TestNodes.oneNodeCluster("coordinate");

  @AfterAll
  static void shutdown() {
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  /** The gate's child named "coordination", if it has one. */
  private static ActorRef<?> coordination(RestartBudget budget) throws Exception {
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(testKit.system()).gate(budget);
    // the gate's setup spawns the child: a query answered by the gate comes after it
    RestartBudgets.get(testKit.system()).waiting(budget.getName()).toCompletableFuture().get();
    return Adapter.toTyped(
        Adapter.toClassic(testKit.system())
            .actorSelection(gate.path().child("coordination"))
            .resolveOne(Duration.ofSeconds(3))
            .toCompletableFuture()
            .get());
  }

  @Test
  void anAdaptiveClusterWideBudgetCoordinates() throws Exception {
    ActorRef<?> child = coordination(RestartBudget.adaptive("coordinated-adaptive").clusterWide());
    assertEquals("coordination", child.path().name());
  }

  @Test
  void theStatusOfAnAdaptiveClusterWideBudgetShowsItsCoordination_aFixedOnesNone()
      throws Exception {
    RestartBudget adaptive = RestartBudget.adaptive("status-adaptive").clusterWide();
    RestartBudget fixed = RestartBudget.of("status-fixed", 10, Duration.ofSeconds(1)).clusterWide();
    RestartBudgets budgets = RestartBudgets.get(testKit.system());
    budgets.gate(adaptive);
    budgets.gate(fixed);
    TestProbe<Object> probe = testKit.createTestProbe();
    // the coordination decides every 200 ms; alone in its cluster, a node sees every report; it
    // is not the prober, since it does not hold with actors waiting
    probe.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          assertEquals(
              Optional.of(new GateProtocol.Coordination(true, 1.0, false, 1, 0)),
              budgets
                  .status("status-adaptive")
                  .toCompletableFuture()
                  .get(5, TimeUnit.SECONDS)
                  .orElseThrow()
                  .coordination());
          return null;
        });
    assertEquals(
        Optional.empty(),
        budgets
            .status("status-fixed")
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS)
            .orElseThrow()
            .coordination());
  }

  @Test
  void aFixedClusterWideBudgetDoesNot() {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                coordination(
                    RestartBudget.of("coordinated-fixed", 10, Duration.ofSeconds(1))
                        .clusterWide()));
    assertEquals(ActorNotFound.class, e.getCause().getClass());
  }
}
