package dev.supervision.backoff;

/**
 * Receives the {@link BackoffEvent}s of every actor supervised with a policy that names it (see
 * {@link BackoffPolicy#withListener(BackoffListener)}).
 *
 * <p>Listeners are called synchronously on the supervised actor's thread, so they must be quick and
 * must not block; one listener instance is shared by all actors of the policy and may be called from
 * several threads at once, so it must be thread-safe. A listener that throws is caught and logged at
 * warn level; it never harms the supervised actor and never stops other listeners from being called.
 */
@FunctionalInterface
public interface BackoffListener {

  /**
   * Called once per event, in the order the events happen for one actor.
   *
   * @param event the event; never {@code null}
   */
  void onEvent(BackoffEvent event);
}
