/**
 * Exponential, full-jitter backoff supervision for Apache Pekko typed actors: {@link
 * dev.supervision.backoff.BackoffSupervisor#wrap} with an immutable {@link
 * dev.supervision.backoff.BackoffPolicy}, which reports {@link
 * dev.supervision.backoff.BackoffEvent}s and may share a {@link
 * dev.supervision.backoff.RestartBudget} with other actors. Everything in this package is API;
 * {@code dev.supervision.backoff.spi} is the extension point that other modules implement or speak;
 * {@code dev.supervision.backoff.internal} and its subpackages are not API.
 */
package dev.supervision.backoff;
