/**
 * The decisions of a restart budget: pure, clock-free classes that decide how many restarts may go
 * and when. The library's gate actors drive them on Pekko's scheduler, and a discrete-event
 * simulation can drive them with virtual time, so that both run the same code.
 *
 * <ul>
 *   <li>{@link dev.supervision.backoff.rate.Pacer}: spreads a budget's permits in time, at most
 *       {@code burst + rate * (d + tick)} in any interval {@code d}; a fixed {@link
 *       dev.supervision.backoff.RestartBudget} is one, an adaptive one paces its controller's rate.
 *   <li>{@link dev.supervision.backoff.rate.TokenBucket}: a token bucket refilled in equal slices
 *       (the adaptive controller's per-slice permits; the slices in which a fixed budget's permit
 *       may come back).
 *   <li>{@link dev.supervision.backoff.rate.AdaptiveRateController}: the controller of an adaptive
 *       budget, which learns the restart rate a shared resource can take from the outcomes of the
 *       restarts it grants.
 *   <li>{@link dev.supervision.backoff.rate.LeaseHolder}, {@link dev.supervision.backoff.rate.Lease},
 *       {@link dev.supervision.backoff.rate.NodeReport}: one node's side of a cluster-wide adaptive
 *       budget, which grants within the leases of the budget's one learner (in the cluster
 *       module) and falls back on {@code 1/N} of the budget without one.
 * </ul>
 *
 * <p>They are not thread-safe: each instance has one owner (an actor, or a single simulation
 * thread). They read no clock: time is whatever the caller passes in. Of the library they import
 * only its argument checks, so that their arithmetic rejects bad arguments in the library's words.
 */
package dev.supervision.backoff.rate;
