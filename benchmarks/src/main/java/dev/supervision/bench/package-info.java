/**
 * Benchmarks of {@code BackoffSupervisor.wrap} against a bare behavior and Pekko's own {@code
 * Behaviors.supervise(...).onFailure(SupervisorStrategy.restartWithBackoff(...))}. Not a library:
 * run through {@code bench/run} (see BENCHMARKS.md at the repository root).
 */
package dev.supervision.bench;
