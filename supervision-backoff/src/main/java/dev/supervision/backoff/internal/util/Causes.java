package dev.supervision.backoff.internal.util;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: the one walk over a failure's cause chain, used to classify failures ({@code
 * BackoffPolicy.isPermanent}) and to find a {@code RetryAfter} hint, and the one safe way to print a
 * failure. Depends on nothing of this library, so that both the policy and the supervisor can use
 * it.
 */
public final class Causes {

  private Causes() {}

  /**
   * Whether a failure is permanent under a policy's stop rules and restart list, as {@code
   * BackoffPolicy.isPermanent} documents: a stop rule matching a throwable of the chain wins; else a
   * non-empty restart list must match one. A stop predicate that throws (non-fatally) matches, and
   * its exception is added to the failure as suppressed; a fatal error passes through.
   *
   * @param failure the failure
   * @param stopOn the permanent failure types
   * @param stopOnPredicate the permanent-failure rule, or {@code null}
   * @param restartOn the transient failure types; empty for all
   * @return whether the actor should stop without a restart
   * @throws NullPointerException if {@code failure} is {@code null}
   */
  public static boolean isPermanent(
      Throwable failure,
      List<Class<? extends Throwable>> stopOn,
      Predicate<Throwable> stopOnPredicate,
      List<Class<? extends Throwable>> restartOn) {
    Check.nonNull(failure, "failure");
    if (stopOn.isEmpty() && stopOnPredicate == null && restartOn.isEmpty()) {
      return false;
    }
    boolean transientFound = restartOn.isEmpty();
    for (Throwable t : chain(failure)) {
      if (isInstanceOfAny(t, stopOn) || matches(stopOnPredicate, failure, t)) {
        return true;
      }
      transientFound = transientFound || isInstanceOfAny(t, restartOn);
    }
    return !transientFound;
  }

  private static boolean matches(Predicate<Throwable> stopOn, Throwable failure, Throwable t) {
    if (stopOn == null) {
      return false;
    }
    try {
      return stopOn.test(t);
    } catch (Throwable e) {
      rethrowIfFatal(e); // a fatal error is not the rule's verdict; as everywhere, it is not caught
      if (e != failure) {
        failure.addSuppressed(e);
      }
      return true;
    }
  }

  private static boolean isInstanceOfAny(Throwable t, List<Class<? extends Throwable>> types) {
    return types.stream().anyMatch(type -> type.isInstance(t));
  }

  /**
   * The failure and its causes ({@link Throwable#getCause()}), outermost first, each throwable
   * once: a cycle in the chain ends the list instead of looping forever, and so does a {@code
   * getCause()} that throws (non-fatally).
   *
   * @param failure the outermost throwable
   * @return an unmodifiable list that starts with {@code failure}
   * @throws NullPointerException if {@code failure} is {@code null}
   */
  public static List<Throwable> chain(Throwable failure) {
    if (failure == null) {
      throw new NullPointerException("failure must not be null");
    }
    Throwable cause = causeOf(failure);
    if (cause == null || cause == failure) {
      return List.of(failure); // the common case, without a set
    }
    List<Throwable> chain = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = failure; t != null && seen.add(t); t = causeOf(t)) {
      chain.add(t);
    }
    return Collections.unmodifiableList(chain);
  }

  /** {@code t.getCause()}, or null if that throws (non-fatally): a broken getCause ends the chain. */
  private static Throwable causeOf(Throwable t) {
    try {
      return t.getCause();
    } catch (Throwable broken) {
      rethrowIfFatal(broken);
      return null;
    }
  }

  /**
   * The failure's {@code toString()}, or, if that throws (non-fatally), its class name and what
   * its {@code toString()} threw: a log line about a failure never fails itself.
   *
   * @param failure the throwable
   * @return its description
   */
  public static String describe(Throwable failure) {
    try {
      return failure.toString();
    } catch (Throwable broken) {
      rethrowIfFatal(broken);
      return failure.getClass().getName()
          + " (whose toString threw "
          + broken.getClass().getName()
          + ")";
    }
  }

  /**
   * Rethrows {@code t} if it is fatal (what Scala's {@code NonFatal}, and so Pekko, does not catch:
   * a {@code VirtualMachineError}, a {@code LinkageError}, an {@code InterruptedException}, a
   * {@code ControlThrowable}); returns if it is not, for the caller to handle.
   *
   * @param t the throwable that was caught
   */
  public static void rethrowIfFatal(Throwable t) {
    if (!NonFatal.apply(t)) {
      throw sneaky(t);
    }
  }

  /**
   * Throws {@code t} as it is, checked or not, without wrapping it. Declared to return an
   * exception so that a caller can write {@code throw sneaky(t)} where the compiler needs a throw.
   *
   * @param t the throwable to throw
   * @return never returns
   */
  public static RuntimeException sneaky(Throwable t) {
    throw Causes.<RuntimeException>rethrow(t);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E rethrow(Throwable t) throws E {
    throw (E) t;
  }

  /** What Pekko's event sourced behaviors fail with when their journal or snapshot store fails. */
  static final String JOURNAL_FAILURE =
      "org.apache.pekko.persistence.typed.internal.JournalFailureException";

  /** The base class of what Pekko's durable state behaviors fail with when their store fails. */
  static final String DURABLE_STATE_FAILURE =
      "org.apache.pekko.persistence.state.exception.DurableStateException";

  /**
   * Whether {@code failure} is what a Pekko persistent behavior fails with when its journal or
   * store fails: an instance of {@code JournalFailureException} (an {@code EventSourcedBehavior}:
   * a failed write, a failed replay, a failed snapshot load) or of a {@code DurableStateException}
   * (a {@code DurableStateBehavior}: a failed load or save). These are the only failures that
   * Pekko's persistence catches with its own, internal stop supervisor. Classes are compared by
   * name, so that the core needs no persistence on its class path.
   *
   * @param failure the failure
   * @return whether it is a persistence failure
   */
  public static boolean isPersistenceFailure(Throwable failure) {
    for (Class<?> c = failure.getClass(); c != null; c = c.getSuperclass()) {
      String name = c.getName();
      if (name.equals(JOURNAL_FAILURE) || name.equals(DURABLE_STATE_FAILURE)) {
        return true;
      }
    }
    return false;
  }
}
