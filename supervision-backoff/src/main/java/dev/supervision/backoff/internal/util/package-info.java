/**
 * INTERNAL API: small helpers that import nothing else of the library (the cause-chain walk, the
 * exception that names its parameter, the jitter arithmetic), so that the values and the engine can
 * both use them. Not covered by compatibility guarantees.
 */
package dev.supervision.backoff.internal.util;
