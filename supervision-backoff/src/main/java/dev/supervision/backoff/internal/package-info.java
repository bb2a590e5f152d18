/**
 * INTERNAL API: the engine of {@code dev.supervision.backoff}: the supervisor behavior, the budget
 * gates and their registry. It stands on the API values, the {@code spi} and {@code
 * internal.util}, and is used by the entry points alone. Nothing here is covered by compatibility
 * guarantees; do not use it from application code or from other modules.
 */
package dev.supervision.backoff.internal;
