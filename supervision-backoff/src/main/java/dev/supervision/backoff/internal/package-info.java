/**
 * INTERNAL API: implementation of {@code dev.supervision.backoff}. Nothing here is covered by
 * compatibility guarantees; do not use it from application code.
 */
package dev.supervision.backoff.internal;
