/**
 * Exponential, full-jitter backoff supervision for Apache Pekko typed actors.
 *
 * <p>The entry point is {@link dev.supervision.backoff.BackoffSupervisor#wrap}, configured by an
 * immutable {@link dev.supervision.backoff.BackoffPolicy}. Delays are shaped by a {@link
 * dev.supervision.backoff.Jitter}; failures can ask for a longer wait with {@link
 * dev.supervision.backoff.RetryAfter}; what happens is reported as {@link
 * dev.supervision.backoff.BackoffEvent}s to {@link dev.supervision.backoff.BackoffListener}s and,
 * optionally, on the actor system's event stream. A policy can be read from HOCON with {@link
 * dev.supervision.backoff.BackoffPolicy#fromConfig(com.typesafe.config.Config, String)}, with
 * defaults in the library's {@code reference.conf}. Everything in this package is API; {@code dev.supervision.backoff.internal} is not.
 */
package dev.supervision.backoff;
