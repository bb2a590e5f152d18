/**
 * The decisions of a restart budget: pure, clock-free classes that decide how many restarts may go
 * and when. The library's gate actors drive them on Pekko's scheduler, and a discrete-event
 * simulation can drive them with virtual time, so that both run the same code: {@link
 * dev.supervision.backoff.rate.Pacer} and {@link dev.supervision.backoff.rate.TokenBucket} for a
 * fixed budget, {@link dev.supervision.backoff.rate.AdaptiveRateController} for an adaptive one, and
 * {@link dev.supervision.backoff.rate.LeaseHolder} for one node of a cluster-wide adaptive budget.
 *
 * <p>They are not thread-safe: each instance has one owner (an actor, or a single simulation
 * thread). They read no clock: time is whatever the caller passes in. Of the library they import
 * only its argument checks, so that their arithmetic rejects bad arguments in the library's words.
 */
package dev.supervision.backoff.rate;
