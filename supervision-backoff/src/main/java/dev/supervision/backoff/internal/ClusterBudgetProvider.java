package dev.supervision.backoff.internal;

import dev.supervision.backoff.RestartBudget;
import org.apache.pekko.actor.typed.Behavior;

/**
 * INTERNAL API: a service (found with {@link java.util.ServiceLoader}) that makes the gate of a
 * cluster-wide {@link RestartBudget}. The {@code supervision-backoff-cluster} module provides the
 * only implementation; the core does not depend on Pekko Cluster.
 */
public interface ClusterBudgetProvider {

  /**
   * The gate behavior of a cluster-wide budget on this node: a {@link BudgetGate} that is told its
   * share with {@link BudgetGate.SetShare} as the cluster's membership changes.
   *
   * @param budget the budget
   * @return the gate behavior
   */
  Behavior<BudgetGate.Command> gate(RestartBudget budget);
}
