package dev.supervision.backoff.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Causes.chain: outermost first, each throwable once, a cycle or a broken {@code getCause} ends
 * the walk. Causes.describe: a failure's description never fails.
 */
final class CausesTest {

  @Test
  void aFailureWithoutCauseIsItsOwnChain() {
    IOException e = new IOException();
    assertEquals(List.of(e), Causes.chain(e));
  }

  @Test
  void theChainListsCausesOutermostFirst() {
    IOException inner = new IOException("inner");
    IllegalStateException middle = new IllegalStateException("middle", inner);
    RuntimeException outer = new RuntimeException("outer", middle);
    assertEquals(List.of(outer, middle, inner), Causes.chain(outer));
  }

  @Test
  void aCycleEndsTheChain() {
    IOException a = new IOException("a");
    IllegalStateException b = new IllegalStateException("b", a);
    a.initCause(b);
    assertEquals(List.of(a, b), Causes.chain(a));
    assertEquals(List.of(b, a), Causes.chain(b));
  }

  @Test
  void nullIsRejectedByName() {
    NullPointerException e = assertThrows(NullPointerException.class, () -> Causes.chain(null));
    assertEquals("failure must not be null", e.getMessage());
  }

  @Test
  void aThrowableThatIsItsOwnCauseIsItsOwnChain() {
    RuntimeException self =
        new RuntimeException("self") {
          @Override
          public synchronized Throwable getCause() {
            return this;
          }
        };
    assertEquals(List.of(self), Causes.chain(self));
  }

  @Test
  void theChainCannotBeModified() {
    RuntimeException outer = new RuntimeException("outer", new IOException("inner"));
    assertThrows(UnsupportedOperationException.class, () -> Causes.chain(outer).clear());
    IOException alone = new IOException();
    assertThrows(UnsupportedOperationException.class, () -> Causes.chain(alone).clear());
  }

  @Test
  void describeIsTheFailuresToString() {
    assertEquals("java.io.IOException: disk", Causes.describe(new IOException("disk")));
  }

  @Test
  void describeNamesTheClassAndWhatToStringThrewWhenToStringFails() {
    Throwable broken = new BrokenToString(new IllegalStateException("no"));
    assertEquals(
        BrokenToString.class.getName() + " (whose toString threw java.lang.IllegalStateException)",
        Causes.describe(broken));
  }

  @Test
  void aBrokenGetCauseEndsTheChain_butAFatalErrorOfItIsLetThrough() {
    RuntimeException broken =
        new RuntimeException("broken getCause") {
          @Override
          public synchronized Throwable getCause() {
            throw new IllegalStateException("bug in getCause");
          }
        };
    assertEquals(List.of(broken), Causes.chain(broken));
    LinkageError fatal = new LinkageError("fatal");
    RuntimeException fatallyBroken =
        new RuntimeException("fatal getCause") {
          @Override
          public synchronized Throwable getCause() {
            throw fatal;
          }
        };
    assertSame(fatal, assertThrows(LinkageError.class, () -> Causes.chain(fatallyBroken)));
  }

  @Test
  void describeLetsAFatalErrorOfToStringThrough() {
    LinkageError fatal = new LinkageError("fatal");
    assertSame(
        fatal, assertThrows(LinkageError.class, () -> Causes.describe(new BrokenToString(fatal))));
  }

  /** A failure whose toString throws what it is given. */
  static final class BrokenToString extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Throwable thrown;

    BrokenToString(Throwable thrown) {
      this.thrown = thrown;
    }

    @Override
    public String toString() {
      if (thrown instanceof RuntimeException r) {
        throw r;
      }
      throw (Error) thrown;
    }
  }

  /** A durable state store's failure, as Pekko's store plugins throw. */
  static final class StoreDown
      extends org.apache.pekko.persistence.state.exception.DurableStateException {
    StoreDown() {
      super("down", null);
    }
  }

  @Test
  void persistenceFailuresAreToldByTheirClassOrASuperclassNeverByACause() {
    assertTrue(Causes.isPersistenceFailure(new StoreDown()));
    assertFalse(Causes.isPersistenceFailure(new IllegalStateException(new StoreDown())));
    assertFalse(Causes.isPersistenceFailure(new RuntimeException("JournalFailureException")));
    assertEquals(
        "org.apache.pekko.persistence.typed.internal.JournalFailureException",
        Causes.JOURNAL_FAILURE);
  }
}
