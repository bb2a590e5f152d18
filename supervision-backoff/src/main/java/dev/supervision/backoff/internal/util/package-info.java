/**
 * INTERNAL API: small helpers that import nothing else of the library (the argument checks, the
 * cause-chain walk, the exception that names its parameter, the jitter arithmetic), so that the spi,
 * the values and the engine can all use them. Not covered by compatibility guarantees.
 */
package dev.supervision.backoff.internal.util;
