/**
 * Micrometer meters for supervision-backoff. {@link
 * dev.supervision.backoff.micrometer.BackoffMetrics#listener} returns a {@link
 * dev.supervision.backoff.BackoffListener} that records what supervised actors do; add it to a
 * policy with {@link dev.supervision.backoff.BackoffPolicy#withListener}. A separate module so that
 * the core library does not depend on Micrometer.
 */
package dev.supervision.backoff.micrometer;
