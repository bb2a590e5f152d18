package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffPolicy;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.internal.InterceptorImpl;

/**
 * INTERNAL API: re-wrapping, one supervisor layer per distinct policy. A behavior that wraps its
 * own next state ({@code counter(n) = wrap(receive(m -> counter(n + 1)), policy)}) must not nest
 * one supervisor per state change. The actor keeps one layer per distinct policy ({@link
 * #samePolicy}): {@code wrap(wrap(b, p), p)} is {@code wrap(b, p)}; a {@code wrap} with an equal
 * policy returned by the child is adopted (its behavior becomes the child and the behavior
 * restarted from now on); a layer with an equal policy started elsewhere (inside a {@code setup},
 * an interceptor or a layer with another policy) takes over from this one, which leaves the stack
 * ({@link #replacedBy}, {@link Layer#handOverTo}). Either way the surviving layer restarts the behavior
 * of the latest re-wrap (as Pekko's, whose newest duplicate survives) and keeps the restart count,
 * the delay schedule, the random sequence and the pending reset of the layer it replaces (unlike
 * Pekko's, which starts counting afresh). Both checks run only on results that are not {@code
 * same}. Stateless: the state is the layers'.
 */
final class ReWrap {

  private ReWrap() {}

  /** A supervisor layer, as re-wrapping sees it (the supervisor, {@link BackoffBehavior}). */
  interface Layer {

    /** The layer's policy. */
    BackoffPolicy policy();

    /** The behavior the layer runs (the next layer down, an interceptor, a plain behavior), or null. */
    Behavior<?> child();

    /**
     * Retires this layer in favour of {@code heir}, a newer layer with an equal policy, handing its
     * state over to it. Idempotent.
     */
    void handOverTo(Layer heir);
  }

  /**
   * Whether two layers supervise "the same way": equal policies (the identity test first, the
   * common case).
   */
  static boolean samePolicy(BackoffPolicy a, BackoffPolicy b) {
    return a == b || a.equals(b);
  }

  /**
   * Whether the child's started behavior holds a newer layer with {@code layer}'s policy (a re-wrap
   * started inside a {@code setup}, an interceptor, or a layer with another policy). If it does,
   * {@code layer} hands its state over to the outermost such layer and retires: the caller returns
   * the child's behavior in place of it. Only supervisors and interceptors are looked into, so a
   * plain behavior costs two type tests.
   */
  static boolean replacedBy(Layer layer, Behavior<?> started) {
    Layer heir = heirIn(layer, started);
    if (heir != null) {
      layer.handOverTo(heir);
    }
    return heir != null;
  }

  /** The outermost layer with {@code layer}'s policy in {@code started}'s stack, or null. */
  private static Layer heirIn(Layer layer, Behavior<?> started) {
    Object next = started;
    while (next instanceof Layer || next instanceof InterceptorImpl) {
      if (next instanceof Layer supervisor) {
        if (samePolicy(supervisor.policy(), layer.policy())) {
          return supervisor;
        }
        next = supervisor.child();
      } else {
        next = ((InterceptorImpl<?, ?>) next).nestedBehavior();
      }
    }
    return null;
  }
}
