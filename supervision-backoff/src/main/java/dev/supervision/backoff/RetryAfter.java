package dev.supervision.backoff;

import java.time.Duration;

/**
 * Implemented by a failure that knows how long the resource it talked to wants to be left alone,
 * for example an exception built from an HTTP {@code 429} or {@code 503} response with a
 * {@code Retry-After} header.
 *
 * <p>When a failure, or a throwable of its cause chain (the outermost wins), implements this
 * interface, the restart delay is {@code max(policyDelay, min(retryAfter,
 * policy.getMaxRetryAfter()))}: a hint may exceed {@link BackoffPolicy#getMaxBackoff()} (the server
 * asked for it), never {@link BackoffPolicy#getMaxRetryAfter()} (so a misbehaving server cannot
 * park an actor for a year).
 *
 * <pre>{@code
 * final class TooManyRequests extends RuntimeException implements RetryAfter {
 *   private final Duration retryAfter;
 *   TooManyRequests(Duration retryAfter) { this.retryAfter = retryAfter; }
 *   public Duration retryAfter() { return retryAfter; }
 * }
 * }</pre>
 */
@FunctionalInterface
public interface RetryAfter {

  /**
   * How long the failed resource asked to wait before the next attempt.
   *
   * @return the minimum delay before the restart; {@code null}, zero or negative means no hint
   */
  Duration retryAfter();
}
