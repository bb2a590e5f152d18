/**
 * Cluster-wide restart budgets for Pekko Cluster. Put this module on the classpath and mark a budget
 * {@link dev.supervision.backoff.RestartBudget#clusterWide()}; nothing else to call: the core finds
 * this module with {@link java.util.ServiceLoader}.
 *
 * <h2>Fixed budgets</h2>
 *
 * <p>Each node enforces its share, {@code 1/N} of the permits and of the burst, where {@code N}
 * counts the members from joining until removed (reachable or not), and adjusts it as members come
 * and go.
 *
 * <h2>Adaptive budgets: one learner per budget</h2>
 *
 * <p>An adaptive budget's rate is learnt by one controller for the whole cluster, the budget's
 * learner ({@link dev.supervision.backoff.cluster.LeaseLearner}), run by a Pekko Cluster Singleton
 * named {@code supervision-backoff-learner-<URL-encoded budget name>} on the cluster's oldest node,
 * started by each node that creates the budget's gate. Every round (the controller's slice, 100 ms) it leases each node
 * its part of the permits ({@link dev.supervision.backoff.rate.Lease}): no limit while steady, the
 * cluster's one probe to one node while holding, whole permits in proportion to the waiting actors
 * while ramping. Each node answers each lease at once with its report ({@link
 * dev.supervision.backoff.rate.NodeReport}: restarts started, failures, actors waiting), from which
 * the learner learns as one node's gate would. The learner's parameters are those of the budget as
 * the node that started it defined it: define a budget the same way on every node.
 *
 * <p>Failure modes. A node whose lease is not renewed for five rounds (the learner's node is gone,
 * a partition, a handover in progress) falls back on a controller of its own with {@code 1/N} of
 * the budget ({@link dev.supervision.backoff.rate.LeaseHolder}), continuing from its last lease:
 * holding if the learner held (probing {@code N} times less often, so that the fallbacks together
 * probe like one node), ramping at its last lease's rate if the learner ramped. Before its first
 * lease a node is on that fallback too. A new learner (after a crash, once the old node is downed
 * and removed, Pekko starts the singleton on the next oldest) starts from the nodes' next reports,
 * at the sum of their rates. Pekko runs a singleton only where its manager was started, and only
 * on the oldest node: if the oldest node never created the budget's gate there is no learner, and
 * every node stays on its fallback (safe, but each node then learns alone). Create the budget's
 * gate on every node at start ({@code RestartBudgets.get(system).gate(budget)}) to avoid it.
 *
 * <p>Report and lease cross nodes as Jackson CBOR (Pekko's {@code pekko-serialization-jackson},
 * bound in this module's {@code reference.conf}). For the learner to move after a crash, the crashed
 * node must be downed: by a downing provider (Pekko's split brain resolver) or by hand.
 */
package dev.supervision.backoff.cluster;
