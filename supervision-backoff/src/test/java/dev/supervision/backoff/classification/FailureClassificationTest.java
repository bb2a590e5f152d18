package dev.supervision.backoff.classification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffPolicy;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** BackoffPolicy.isPermanent: how stopOn (classes and predicate) and restartOn combine. */
final class FailureClassificationTest {

  private static final BackoffPolicy BASE =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));

  @Test
  void withoutRulesNothingIsPermanent() {
    assertFalse(BASE.isPermanent(new IllegalStateException()));
    assertFalse(BASE.isPermanent(new Error("even an error is left to the supervisor")));
  }

  @Test
  void emptyClassListsMeanNoRule() {
    BackoffPolicy p = BASE.withStopOn().withRestartOn();
    assertEquals(List.of(), p.getStopOn());
    assertEquals(List.of(), p.getRestartOn());
    assertFalse(p.isPermanent(new Error("any")));
    assertEquals(BASE, p);
  }

  @Test
  void restartOnRestartsOnlyTheListedTypesAndTheirSubclasses() {
    BackoffPolicy p = BASE.withRestartOn(IOException.class, TimeoutException.class);
    assertFalse(p.isPermanent(new IOException()));
    assertFalse(p.isPermanent(new FileNotFoundException()));
    assertFalse(p.isPermanent(new TimeoutException()));
    assertTrue(p.isPermanent(new IllegalStateException()));
  }

  @Test
  void restartOnLooksThroughTheCauseChain() {
    BackoffPolicy p = BASE.withRestartOn(IOException.class);
    assertFalse(p.isPermanent(new RuntimeException(new UncheckedIOException(new IOException()))));
    assertTrue(p.isPermanent(new RuntimeException(new IllegalStateException())));
  }

  @Test
  void stopOnClassWinsOverRestartOn() {
    BackoffPolicy p = BASE.withRestartOn(IOException.class).withStopOn(FileNotFoundException.class);
    assertFalse(p.isPermanent(new IOException()));
    assertTrue(p.isPermanent(new FileNotFoundException()));
    assertTrue(p.isPermanent(new IOException(new FileNotFoundException()))); // stop found deeper
    assertTrue(p.isPermanent(new IllegalStateException()));
  }

  @Test
  void stopOnPredicateIsTestedOnEveryThrowableOfTheChain() {
    BackoffPolicy p = BASE.withStopOn(t -> "fatal".equals(t.getMessage()));
    assertTrue(p.isPermanent(new IllegalStateException("fatal")));
    assertTrue(p.isPermanent(new RuntimeException("outer", new IOException("fatal"))));
    assertFalse(p.isPermanent(new RuntimeException("outer", new IOException("transient"))));
  }

  @Test
  void stopOnPredicateWinsOverRestartOn() {
    BackoffPolicy p =
        BASE.withRestartOn(IOException.class).withStopOn(t -> t instanceof FileNotFoundException);
    assertFalse(p.isPermanent(new IOException()));
    assertTrue(p.isPermanent(new FileNotFoundException()));
  }

  @Test
  void stopOnClassesAndPredicateBothApply() {
    BackoffPolicy p =
        BASE.withStopOn(IllegalArgumentException.class)
            .withStopOn(t -> t instanceof TimeoutException);
    assertTrue(p.isPermanent(new IllegalArgumentException()));
    assertTrue(p.isPermanent(new TimeoutException()));
    assertFalse(p.isPermanent(new IOException()));
  }

  @Test
  void aThrowingPredicateMakesTheFailurePermanentAndIsKeptAsSuppressed() {
    IllegalStateException bug = new IllegalStateException("bug in the rule");
    BackoffPolicy p =
        BASE.withStopOn(
            t -> {
              throw bug;
            });
    IOException failure = new IOException();
    assertTrue(p.isPermanent(failure));
    assertEquals(1, failure.getSuppressed().length);
    assertSame(bug, failure.getSuppressed()[0]);
  }

  /** Thrown by a stop rule that has a bug; not a RuntimeException. */
  static final class RuleBug extends Error {
    RuleBug() {
      super("bug in the rule", null, false, false);
    }
  }

  @Test
  void aStopPredicateThatThrowsAnErrorCountsAsAMatchAndIsKeptAsSuppressed() {
    RuleBug bug = new RuleBug();
    BackoffPolicy p =
        BASE.withStopOn(
            t -> {
              throw bug;
            });
    IOException failure = new IOException("the failure");
    assertTrue(p.isPermanent(failure));
    assertSame(bug, failure.getSuppressed()[0]);
  }

  @Test
  void aStopPredicateThatSneaksACheckedExceptionCountsAsAMatch() {
    IOException bug = new IOException("checked, thrown sneakily by the rule");
    BackoffPolicy p = BASE.withStopOn(t -> FailureClassificationTest.<RuntimeException>sneak(bug));
    IllegalStateException failure = new IllegalStateException("the failure");
    assertTrue(p.isPermanent(failure));
    assertSame(bug, failure.getSuppressed()[0]);
  }

  @Test
  void aStopPredicateThatThrowsAFatalErrorIsNotCaught() {
    StackOverflowError fatal = new StackOverflowError();
    BackoffPolicy p =
        BASE.withStopOn(
            t -> {
              throw fatal;
            });
    assertSame(
        fatal, assertThrows(StackOverflowError.class, () -> p.isPermanent(new IOException())));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> boolean sneak(Throwable t) throws E {
    throw (E) t;
  }

  @Test
  void aCauseCycleEnds() {
    IOException a = new IOException("a");
    IllegalStateException b = new IllegalStateException("b", a);
    a.initCause(b);
    assertTrue(BASE.withRestartOn(TimeoutException.class).isPermanent(a));
    assertFalse(BASE.withRestartOn(IllegalStateException.class).isPermanent(a));
  }
}
