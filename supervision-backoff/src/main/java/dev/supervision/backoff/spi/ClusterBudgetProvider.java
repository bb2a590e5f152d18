package dev.supervision.backoff.spi;

import dev.supervision.backoff.rate.AdaptiveRateController;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.pekko.actor.typed.Behavior;

/**
 * A service, found with {@link java.util.ServiceLoader}, that makes the gate of a cluster-wide
 * restart budget on one node. The core does not depend on Pekko Cluster; the {@code
 * supervision-backoff-cluster} module provides the implementation and registers it in {@code
 * META-INF/services/dev.supervision.backoff.spi.ClusterBudgetProvider}. The core uses the first
 * provider it finds.
 *
 * <p>A provider does not enforce the budget itself: it wraps the core's gate, which it gets from
 * {@code localGate}, and tells that gate the node's share with {@link GateProtocol.SetShare} as
 * the cluster's membership changes.
 */
public interface ClusterBudgetProvider {

  /**
   * The gate behavior of a cluster-wide budget on this node.
   *
   * @param budgetName the budget's name
   * @param adaptive for an adaptive budget, its controller parameters (the whole cluster's, which
   *     the budget's one learner runs): its gates grant within the learner's leases ({@link
   *     GateProtocol.GrantLease}, {@link GateProtocol.CollectReport}, see {@link dev.supervision.backoff.rate.LeaseHolder});
   *     empty for a fixed budget, whose gates need nothing but the share
   * @param localGate makes the core's gate of this budget, enforcing {@code 1/members} of it from
   *     its start ({@code members} below 1 counts as 1); the returned behavior is spawned by the
   *     core, once per gate
   * @return the gate behavior: {@code localGate}'s behavior, set up to receive {@link
   *     GateProtocol.SetShare} when the number of nodes that share the budget changes (and, for an
   *     adaptive budget, the learner's leases)
   */
  Behavior<GateProtocol.Command> gate(
      String budgetName,
      Optional<AdaptiveRateController.Parameters> adaptive,
      IntFunction<Behavior<GateProtocol.Command>> localGate);
}
