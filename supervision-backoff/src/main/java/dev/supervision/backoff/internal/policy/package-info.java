/**
 * INTERNAL API: the policy's own machinery, pure functions of values with no actor in them: the
 * delay schedule ({@code BackoffPolicy.delays} and the supervisor draw from it) and the HOCON
 * reader behind {@code BackoffPolicy.fromConfig}. Part of the values layer: it may import the API
 * values and {@code internal.util}, never the engine. Not covered by compatibility guarantees.
 */
package dev.supervision.backoff.internal.policy;
