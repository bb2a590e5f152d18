/**
 * Building blocks that other modules and simulations plug into: pure, clock-free classes that the
 * library's own gate actors drive on Pekko's scheduler, and that a discrete-event simulation can
 * drive with virtual time, so that both run the same code.
 *
 * <ul>
 *   <li>{@link dev.supervision.backoff.spi.TokenBucket}: the token bucket of a fixed {@link
 *       dev.supervision.backoff.RestartBudget}, refilled in equal slices.
 *   <li>{@link dev.supervision.backoff.spi.AdaptiveRateController}: the controller of an adaptive
 *       budget, which learns the restart rate a shared resource can take from the outcomes of the
 *       restarts it grants.
 * </ul>
 *
 * <p>The classes here are not thread-safe: each instance has one owner (an actor, or a single
 * simulation thread). They read no clock: time is whatever the caller passes in.
 */
package dev.supervision.backoff.spi;
