/**
 * The extension point: what other modules implement or speak. It imports nothing else of the
 * library, so any layer and any module may stand on it.
 *
 * <ul>
 *   <li>{@link dev.supervision.backoff.spi.GateProtocol}: the messages of a restart budget's gate
 *       (immutable records, safe to send from any thread).
 *   <li>{@link dev.supervision.backoff.spi.ClusterBudgetProvider}: the service, found with {@code
 *       ServiceLoader}, that makes the gate of a cluster-wide budget; the {@code
 *       supervision-backoff-cluster} module implements it.
 *   <li>{@link dev.supervision.backoff.spi.TokenBucket}: the token bucket of a fixed {@link
 *       dev.supervision.backoff.RestartBudget}, refilled in equal slices.
 *   <li>{@link dev.supervision.backoff.spi.AdaptiveRateController}: the controller of an adaptive
 *       budget, which learns the restart rate a shared resource can take from the outcomes of the
 *       restarts it grants.
 * </ul>
 *
 * <p>{@code TokenBucket} and {@code AdaptiveRateController} are pure, clock-free classes that the
 * library's own gate actors drive on Pekko's scheduler, and that a discrete-event simulation can
 * drive with virtual time, so that both run the same code. They are not thread-safe: each instance
 * has one owner (an actor, or a single simulation thread). They read no clock: time is whatever the
 * caller passes in.
 */
package dev.supervision.backoff.spi;
