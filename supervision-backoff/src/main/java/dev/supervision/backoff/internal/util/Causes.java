package dev.supervision.backoff.internal.util;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: the one walk over a failure's cause chain (to classify failures and find a {@code
 * RetryAfter} hint) and the one safe way to print a failure. Depends on nothing of this library.
 */
public final class Causes {

  private Causes() {}

  // as BackoffPolicy.isPermanent documents; a throwing predicate matches (its exception suppressed)
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

  // the failure and its causes, outermost first, each once: a cycle or a throwing getCause ends it
  public static List<Throwable> chain(Throwable failure) {
    Check.nonNull(failure, "failure");
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

  // t.getCause(), or null if that throws (non-fatally)
  private static Throwable causeOf(Throwable t) {
    try {
      return t.getCause();
    } catch (Throwable broken) {
      rethrowIfFatal(broken);
      return null;
    }
  }

  // toString(), or, if that throws, the class and what it threw: a log line never fails
  public static String describe(Throwable failure) {
    try {
      return failure.toString();
    } catch (Throwable broken) {
      rethrowIfFatal(broken);
      String threw = broken.getClass().getName();
      return failure.getClass().getName() + " (whose toString threw " + threw + ")";
    }
  }

  // rethrows what Scala's NonFatal (and so Pekko) does not catch: VirtualMachineError, ...
  public static void rethrowIfFatal(Throwable t) {
    if (!NonFatal.apply(t)) {
      throw sneaky(t);
    }
  }

  // throws t unwrapped, checked or not; returns a type so callers can write throw sneaky(t)
  public static RuntimeException sneaky(Throwable t) {
    throw Causes.<RuntimeException>rethrow(t);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E rethrow(Throwable t) throws E {
    throw (E) t;
  }

  // what event sourced behaviors fail with when their journal or snapshot store fails
  static final String JOURNAL_FAILURE =
      "org.apache.pekko.persistence.typed.internal.JournalFailureException";

  // the base of what durable state behaviors fail with when their store fails
  static final String DURABLE_STATE_FAILURE =
      "org.apache.pekko.persistence.state.exception.DurableStateException";

  // the only failures Pekko's persistence stops itself; by name, so the core needs no persistence
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
