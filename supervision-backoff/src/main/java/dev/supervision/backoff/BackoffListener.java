package dev.supervision.backoff;

/**
 * Receives the {@link BackoffEvent}s of every actor supervised with a policy that names it (see
 * {@link BackoffPolicy#withListener(BackoffListener)}).
 *
 * <p>Listeners are called on the supervised actor's thread, so they must be quick; one instance
 * serves all actors of the policy, so it must be thread-safe. One that throws is logged at WARN and
 * harms neither the actor nor the other listeners.
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
