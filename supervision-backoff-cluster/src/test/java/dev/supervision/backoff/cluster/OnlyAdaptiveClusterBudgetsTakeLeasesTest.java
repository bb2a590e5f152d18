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
 * The gate of a cluster-wide adaptive budget has a client of the budget's learner (a cluster
 * singleton) and holds its leases; the gate of a cluster-wide fixed budget, which needs only its
 * share of the membership, has none (no learner, no lease in its status).
 */
final class OnlyAdaptiveClusterBudgetsTakeLeasesTest {

  static final ActorTestKit testKit = TestNodes.oneNodeCluster("take-leases");

  @AfterAll
  static void shutdown() {
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  /** The gate's child named "learner-client", if it has one. */
  private static ActorRef<?> learnerClient(RestartBudget budget) throws Exception {
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(testKit.system()).gate(budget);
    // the gate's setup spawns the child: a query answered by the gate comes after it
    RestartBudgets.get(testKit.system()).waiting(budget.getName()).toCompletableFuture().get();
    return Adapter.toTyped(
        Adapter.toClassic(testKit.system())
            .actorSelection(gate.path().child("learner-client"))
            .resolveOne(Duration.ofSeconds(3))
            .toCompletableFuture()
            .get());
  }

  @Test
  void anAdaptiveClusterWideBudgetHasALearnerClient() throws Exception {
    ActorRef<?> child = learnerClient(RestartBudget.adaptive("leased-adaptive").clusterWide());
    assertEquals("learner-client", child.path().name());
  }

  @Test
  void theStatusOfAnAdaptiveClusterWideBudgetShowsItsLease_aFixedOnesNone() throws Exception {
    RestartBudget adaptive = RestartBudget.adaptive("status-adaptive").clusterWide();
    RestartBudget fixed = RestartBudget.of("status-fixed", 10, Duration.ofSeconds(1)).clusterWide();
    RestartBudgets budgets = RestartBudgets.get(testKit.system());
    budgets.gate(adaptive);
    budgets.gate(fixed);
    TestProbe<Object> probe = testKit.createTestProbe();
    // the learner leases every 100 ms; alone in its cluster, the node holds a lease without a
    // limit (steady), counted alone, no probe, nothing waiting
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
  void aFixedClusterWideBudgetHasNoLearnerClient() {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                learnerClient(
                    RestartBudget.of("unleased-fixed", 10, Duration.ofSeconds(1)).clusterWide()));
    assertEquals(ActorNotFound.class, e.getCause().getClass());
  }
}
