package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffPolicy;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.internal.InterceptorImpl;

/**
 * INTERNAL API: one supervisor layer per distinct policy, so that a behavior that wraps its own
 * next state ({@code counter(n) = wrap(receive(m -> counter(n + 1)), p)}) nests no supervisor per
 * state change. A returned re-wrap is adopted; one started elsewhere (in a {@code setup}, an
 * interceptor, another policy's layer) takes over and this layer leaves the stack. The survivor
 * restarts the latest re-wrap's behavior (as Pekko's newest duplicate survives) and keeps the
 * count, schedule, random and pending reset (Pekko's starts afresh). Checked only on results that
 * are not {@code same}.
 */
final class ReWrap {

  private ReWrap() {}

  interface Layer {
    BackoffPolicy policy();

    Behavior<?> child(); // or null

    /** Retires this layer, handing its state over to {@code heir}. Idempotent. */
    void handOverTo(Layer heir);
  }

  static boolean samePolicy(BackoffPolicy a, BackoffPolicy b) {
    return a == b || a.equals(b);
  }

  /**
   * If {@code started} holds a layer with {@code layer}'s policy, hands over to the outermost and
   * the caller returns {@code started}. A plain behavior costs two type tests.
   */
  static boolean replacedBy(Layer layer, Behavior<?> started) {
    Layer heir = heirIn(layer, started);
    if (heir != null) {
      layer.handOverTo(heir);
    }
    return heir != null;
  }

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
