package dev.supervision.backoff;

import java.time.Duration;

/**
 * Answers messages that reach a supervised actor while it waits for its restart, set with {@link
 * BackoffPolicy#withHandlerWhileBackingOff(BackoffHandler)}: the server side of {@link RetryAfter},
 * with which a recovering actor tells its callers when to come back, instead of keeping them
 * waiting on a stashed message (classic {@code BackoffSupervisor}'s {@code withReplyWhileStopped}
 * and {@code withHandlerWhileStopped}).
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
 * <p>It is called on the actor's thread, only during a backoff (a running actor never calls it), for
 * every message in the order they arrive; signals are not given to it. It must not block. A handler
 * that throws costs no restart and loses no message: the supervisor writes one WARN line and stashes
 * the message.
 */
@FunctionalInterface
public interface BackoffHandler {

  /**
   * Handles a message that arrived during a backoff.
   *
   * @param message the message, as sent to the actor
   * @param untilRestart the time left until the scheduled restart, to within one of the
   *     supervisor's ticks above it: the delay drawn for this backoff (with its {@link RetryAfter}
   *     hint) right after the failure, then less as the delay runs, never more than the delay and
   *     never below one tick (or the delay, if shorter) before the restart. The supervisor reads
   *     no clock (its time is the actor system's scheduler, so that {@code ManualTime} drives it):
   *     during a backoff of a policy with a handler it counts the elapsed time in ticks of the
   *     delay / 16 (at least 10 ms, Pekko's scheduler tick) and passes the delay less the ticks
   *     passed (a scheduler that runs late only makes it larger). Once the delay has passed and
   *     the restart waits for stopped children or a restart budget's permit, whose arrival the
   *     supervisor cannot know, it is the policy's {@code minBackoff}, the shortest wait the
   *     policy itself makes (a caller that comes back then finds the actor restarted, or is told
   *     again)
   * @return {@code true} if the handler answered the message (it is not stashed), {@code false} to
   *     stash it as without a handler
   */
  boolean handle(Object message, Duration untilRestart);
}
