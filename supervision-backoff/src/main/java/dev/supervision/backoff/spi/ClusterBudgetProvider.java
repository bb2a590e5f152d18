package dev.supervision.backoff.spi;

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
   * @param adaptive whether the budget is adaptive: only an adaptive budget's gates take leases
   *     from a learner ({@link GateProtocol.GrantLease}); a fixed budget's gates need nothing but
   *     the share
   * @param localGate makes the core's gate of this budget, enforcing {@code 1/members} of it from
   *     its start ({@code members} below 1 counts as 1); the returned behavior is spawned by the
   *     core, once per gate
   * @return the gate behavior: {@code localGate}'s behavior, set up to receive {@link
   *     GateProtocol.SetShare} when the number of nodes that share the budget changes
   */
  Behavior<GateProtocol.Command> gate(
      String budgetName, boolean adaptive, IntFunction<Behavior<GateProtocol.Command>> localGate);

  /**
   * The gate behavior of a cluster-wide budget on this node, knowing an adaptive budget's
   * controller parameters (which the budget's learner needs). The core calls this method; the
   * default calls {@link #gate(String, boolean, IntFunction)}.
   *
   * @param budgetName the budget's name
   * @param adaptive the controller parameters of an adaptive budget (the whole cluster's); empty
   *     for a fixed budget
   * @param localGate makes the core's gate of this budget (see {@link #gate(String, boolean,
   *     IntFunction)})
   * @return the gate behavior
   */
  default Behavior<GateProtocol.Command> gate(
      String budgetName,
      Optional<AdaptiveRateController.Parameters> adaptive,
      IntFunction<Behavior<GateProtocol.Command>> localGate) {
    return gate(budgetName, adaptive.isPresent(), localGate);
  }
}
