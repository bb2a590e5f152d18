/**
 * The extension point: what other modules implement or speak. Of the library it imports only the
 * internal argument checks (so that its arithmetic rejects bad arguments in the library's words),
 * so any layer and any module may stand on it.
 *
 * <ul>
 *   <li>{@link dev.supervision.backoff.spi.GateProtocol}: the messages of a restart budget's gate
 *       (immutable records, safe to send from any thread).
 *   <li>{@link dev.supervision.backoff.spi.ClusterBudgetProvider}: the service, found with {@code
 *       ServiceLoader}, that makes the gate of a cluster-wide budget; the {@code
 *       supervision-backoff-cluster} module implements it.
 *   <li>{@link dev.supervision.backoff.spi.Pacer}: spreads a budget's permits in time, at most {@code
 *       burst + rate * (d + tick)} in any interval {@code d}; a fixed {@link
 *       dev.supervision.backoff.RestartBudget} is one, an adaptive one paces its controller's rate.
 *   <li>{@link dev.supervision.backoff.spi.TokenBucket}: a token bucket refilled in equal slices
 *       (the adaptive controller's per-slice permits; the slices in which a fixed budget's permit
 *       may come back).
 *   <li>{@link dev.supervision.backoff.spi.AdaptiveRateController}: the controller of an adaptive
 *       budget, which learns the restart rate a shared resource can take from the outcomes of the
 *       restarts it grants.
 *   <li>{@link dev.supervision.backoff.spi.LeaseHolder}, {@link dev.supervision.backoff.spi.Lease},
 *       {@link dev.supervision.backoff.spi.NodeReport}: one node's side of a cluster-wide adaptive
 *       budget, which grants within the leases of the budget's one learner (in the cluster
 *       module) and falls back on {@code 1/N} of the budget without one.
 * </ul>
 *
 * <p>{@code Pacer}, {@code TokenBucket}, {@code AdaptiveRateController} and {@code LeaseHolder} are pure, clock-free classes that the
 * library's own gate actors drive on Pekko's scheduler, and that a discrete-event simulation can
 * drive with virtual time, so that both run the same code. They are not thread-safe: each instance
 * has one owner (an actor, or a single simulation thread). They read no clock: time is whatever the
 * caller passes in.
 */
package dev.supervision.backoff.spi;
