/**
 * The stages behind {@code BackoffSource}, {@code BackoffFlow} and {@code BackoffSink}. Not API:
 * anything here may change in any release.
 */
package dev.supervision.backoff.stream.internal;
