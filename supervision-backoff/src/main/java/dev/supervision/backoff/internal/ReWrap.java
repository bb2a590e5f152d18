package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffPolicy;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.internal.InterceptorImpl;

/**
 * INTERNAL API: re-wrapping, one supervisor layer per distinct policy. A behavior that wraps its
 * own next state ({@code counter(n) = wrap(receive(m -> counter(n + 1)), policy)}) must not nest
 * one supervisor per state change. The actor keeps one layer per distinct policy ({@link
 * BackoffPolicy#equals}): {@code wrap(wrap(b, p), p)} is {@code wrap(b, p)} ({@link
 * BackoffBehavior#supervise}); a {@code Wrap} with an equal policy returned by the child is adopted
 * ({@link #adopt}: its behavior becomes the child and the behavior restarted from now on); a layer
 * with an equal policy started elsewhere (inside a {@code setup}, an interceptor or a layer with
 * another policy) takes over from this one, which leaves the stack ({@link #replacedBy}). Either way
 * the surviving layer restarts the behavior of the latest re-wrap (as Pekko's, whose newest
 * duplicate survives) and keeps the restart count, the delay schedule, the random sequence and the
 * pending reset of the layer it replaces (unlike Pekko's, which starts counting afresh). Both checks
 * run only on results that are not {@code same}. Stateless: the state is the layers'.
 */
final class ReWrap {

  private ReWrap() {}

  /**
   * A re-wrap with an equal policy returned by the child ({@code wrap(b, policy)} returned as is):
   * this layer adopts {@code b} as its child and as the behavior it restarts, instead of nesting a
   * second supervisor. Different policies are left alone; they nest. Any other behavior is
   * returned as is (one type test).
   *
   * @return the behavior to start as the child
   */
  @SuppressWarnings("unchecked")
  static <T> Behavior<T> adopt(BackoffBehavior<T> layer, Behavior<T> result) {
    Behavior<T> next = result;
    while (next instanceof BackoffBehavior.Wrap
        && samePolicy(layer, ((BackoffBehavior.Wrap<T>) next).policy)) {
      next = ((BackoffBehavior.Wrap<T>) next).initial;
      layer.initial = next;
    }
    return next;
  }

  /**
   * Whether a started behavior from the child holds a newer layer with an equal policy (a re-wrap
   * that was started elsewhere: inside a {@code Behaviors.setup}, an interceptor, or a layer with a
   * different policy). If it does, this layer hands its state over to that one (see {@link
   * #handOver}) and retires: the caller returns the child's behavior in place of this one. Only
   * supervisors and interceptors are looked into, so a plain behavior costs two type tests.
   */
  static boolean replacedBy(BackoffBehavior<?> layer, Behavior<?> started) {
    if (!(started instanceof BackoffBehavior) && !(started instanceof InterceptorImpl)) {
      return false;
    }
    BackoffBehavior<?> heir = equalLayerIn(layer, started);
    if (heir == null) {
      return false;
    }
    handOver(layer, heir);
    return true;
  }

  /** Whether {@code other} supervises "the same way": an equal policy (the identity test first, the common case). */
  private static boolean samePolicy(BackoffBehavior<?> layer, BackoffPolicy other) {
    return other == layer.policy || other.equals(layer.policy);
  }

  /** The outermost supervisor with an equal policy in {@code b}'s stack of layers, or null. */
  private static BackoffBehavior<?> equalLayerIn(BackoffBehavior<?> self, Behavior<?> b) {
    Behavior<?> layer = b;
    while (layer != null) {
      if (layer instanceof BackoffBehavior) {
        BackoffBehavior<?> supervisor = (BackoffBehavior<?>) layer;
        if (samePolicy(self, supervisor.policy)) {
          return supervisor;
        }
        layer = supervisor.current;
      } else if (layer instanceof InterceptorImpl) {
        layer = ((InterceptorImpl<?, ?>) layer).nestedBehavior();
      } else {
        return null;
      }
    }
    return null;
  }

  /**
   * Retires this layer in favour of {@code heir}, a newer layer with an equal policy. A heir that
   * has just started healthy takes over the restart count, the delay schedule, the random sequence
   * and the pending reset (its ticks are this layer's), so that re-wrapping neither resets nor
   * restarts the backoff. A heir that failed while it started has begun its own backoff; this
   * layer's timers are cancelled and the heir goes on with its own count. Idempotent.
   */
  private static void handOver(BackoffBehavior<?> layer, BackoffBehavior<?> heir) {
    if (layer.owner == null) {
      return; // retired already (a stash replay may find the heir again in later results)
    }
    if (layer instanceof BackoffBehavior.Classic && heir instanceof BackoffBehavior.Classic) {
      ((BackoffBehavior.Classic<?>) heir).finalStopSeen |=
          ((BackoffBehavior.Classic<?>) layer).finalStopSeen;
    }
    if (heir.owner == heir && heir.current != null && !heir.inBackoff) {
      heir.restarts = layer.restarts;
      heir.schedule = layer.schedule;
      heir.random = layer.random;
      if (layer.timer != null) { // the pending reset: its tick names this layer's owner
        heir.owner = layer.owner;
        heir.generation = layer.generation;
        heir.timer = layer.timer;
        layer.timer = null;
      }
    } else {
      layer.cancelOwnTimers();
    }
    layer.owner = null; // retired
    layer.current = null;
    layer.initial = null;
    layer.schedule = null;
    layer.random = null;
  }
}
