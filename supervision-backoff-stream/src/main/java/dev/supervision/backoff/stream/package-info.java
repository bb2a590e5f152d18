/**
 * Restartable Pekko Streams sources, flows and sinks with the backoff of a {@link
 * dev.supervision.backoff.BackoffPolicy}: {@link dev.supervision.backoff.stream.BackoffSource},
 * {@link dev.supervision.backoff.stream.BackoffFlow} and {@link
 * dev.supervision.backoff.stream.BackoffSink}, named after Pekko's {@code RestartSource}, {@code
 * RestartFlow} and {@code RestartSink}. {@link dev.supervision.backoff.stream.BackoffStreams} tells
 * which stream an event is about.
 */
package dev.supervision.backoff.stream;
