package dev.supervision.backoff;

import java.time.Duration;

/**
 * Answers messages that reach a supervised actor while it waits for its restart ({@link
 * BackoffPolicy#withHandlerWhileBackingOff(BackoffHandler)}), so that it can tell its callers when
 * to come back instead of keeping them waiting on a stashed message.
 *
 * <pre>{@code
 * policy.withHandlerWhileBackingOff(
 *     (message, untilRestart) -> {
 *       if (message instanceof Query query) {
 *         query.replyTo().tell(new Unavailable(untilRestart));
 *         return true; // answered: not stashed
 *       }
 *       return false; // stashed, delivered after the restart
 *     });
 * }</pre>
 *
 * <p>It is called on the actor's thread, only during a backoff, for every message (not signals) in
 * order. It must not block. One that throws costs no restart: one WARN line, and the message is
 * stashed.
 */
@FunctionalInterface
public interface BackoffHandler {

  /**
   * Handles a message that arrived during a backoff.
   *
   * @param message the message, as sent to the actor
   * @param untilRestart the time left until the scheduled restart, to within one tick above it: the
   *     supervisor reads no clock, so it counts the scheduler's ticks of the delay / 16 (at least
   *     10 ms) and passes the delay less the ticks passed (a late scheduler only makes it larger).
   *     Once the delay has passed and the restart waits for stopped children or a budget's permit,
   *     which the supervisor cannot foresee, it is the policy's {@code minBackoff}
   * @return {@code true} if the handler answered the message (it is not stashed), {@code false} to
   *     stash it as without a handler
   */
  boolean handle(Object message, Duration untilRestart);
}
