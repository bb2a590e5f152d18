package dev.supervision.backoff.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Causes.chain: outermost first, each throwable once, a cycle ends the walk. */
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
}
