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
 * defaults in the library's {@code reference.conf}. A {@link dev.supervision.backoff.RestartBudget}
 * limits how fast a group of actors restarts, at a fixed rate or at one it learns ({@link
 * dev.supervision.backoff.RestartBudget#adaptive(String)}); {@link
 * dev.supervision.backoff.RestartBudgets} observes and releases budgets, which report {@link
 * dev.supervision.backoff.BudgetEvent}s on the event stream. Everything in this package is API;
 * {@code dev.supervision.backoff.spi} is the extension point that other modules implement or
 * speak (the budget gate's protocol, the cluster budget service, the clock-free budget arithmetic);
 * {@code dev.supervision.backoff.internal} and its subpackages are not API.
 */
package dev.supervision.backoff;
