package dev.supervision.backoff.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * INTERNAL API: the one walk over a failure's cause chain, used to classify failures ({@code
 * BackoffPolicy.isPermanent}) and to find a {@code RetryAfter} hint. Depends on nothing of this
 * library, so that both the policy and the supervisor can use it.
 */
public final class Causes {

  private Causes() {}

  /**
   * The failure and its causes ({@link Throwable#getCause()}), outermost first, each throwable
   * once: a cycle in the chain ends the list instead of looping forever.
   *
   * @param failure the outermost throwable
   * @return an unmodifiable list that starts with {@code failure}
   * @throws NullPointerException if {@code failure} is {@code null}
   */
  public static List<Throwable> chain(Throwable failure) {
    if (failure == null) {
      throw new NullPointerException("failure must not be null");
    }
    Throwable cause = failure.getCause();
    if (cause == null || cause == failure) {
      return List.of(failure); // the common case, without a set
    }
    List<Throwable> chain = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
      chain.add(t);
    }
    return Collections.unmodifiableList(chain);
  }
}
