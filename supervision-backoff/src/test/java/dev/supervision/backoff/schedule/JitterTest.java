package dev.supervision.backoff.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The four standard jitters as pure functions of (bound, previous, draw), with fixed draws. */
final class JitterTest {

  static final Duration MIN = Duration.ofMillis(100);
  static final Duration MAX = Duration.ofSeconds(10);

  static Jitter.Step step(int attempt, long boundMs, long previousMs) {
    return new Jitter.Step(
        attempt, MIN, MAX, Duration.ofMillis(boundMs), Duration.ofMillis(previousMs));
  }

  @Test
  void full_isTheDrawTimesTheBound() {
    assertEquals(Duration.ZERO, Jitter.full().delay(step(4, 800, 0), 0.0));
    assertEquals(Duration.ofMillis(200), Jitter.full().delay(step(4, 800, 0), 0.25));
    assertEquals(Duration.ofMillis(799), Jitter.full().delay(step(4, 800, 0), 0.99875));
  }

  @Test
  void equal_isHalfTheBoundPlusTheDrawTimesTheOtherHalf() {
    assertEquals(Duration.ofMillis(400), Jitter.equal().delay(step(4, 800, 0), 0.0));
    assertEquals(Duration.ofMillis(600), Jitter.equal().delay(step(4, 800, 0), 0.5));
  }

  @Test
  void decorrelated_drawsBetweenMinAndThreeTimesThePrevious() {
    assertEquals(MIN, Jitter.decorrelated().delay(step(2, 200, 300), 0.0));
    // min + 0.5 * (3 * 300 - min) = 100 + 400
    assertEquals(Duration.ofMillis(500), Jitter.decorrelated().delay(step(2, 200, 300), 0.5));
  }

  @Test
  void decorrelated_isCappedAtMax() {
    assertEquals(MAX, Jitter.decorrelated().delay(step(9, 10_000, 9_000), 0.9));
  }

  @Test
  void none_isTheBound() {
    assertEquals(Duration.ofMillis(800), Jitter.none().delay(step(4, 800, 0), 0.7));
  }

  @Test
  void standardJittersHaveReadableNames() {
    assertEquals("full", Jitter.full().toString());
    assertEquals("equal", Jitter.equal().toString());
    assertEquals("decorrelated", Jitter.decorrelated().toString());
    assertEquals("none", Jitter.none().toString());
  }

  @Test
  void standardJittersAreEqualByKind() {
    List<Supplier<Jitter>> kinds =
        List.of(Jitter::full, Jitter::equal, Jitter::decorrelated, Jitter::none);
    for (int i = 0; i < kinds.size(); i++) {
      for (int j = 0; j < kinds.size(); j++) {
        Jitter a = kinds.get(i).get();
        Jitter b = kinds.get(j).get();
        assertEquals(i == j, a.equals(b), a + " equals " + b);
        if (i == j) {
          assertEquals(a.hashCode(), b.hashCode(), a + "'s hash code");
        }
      }
    }
    BackoffPolicy policy = BackoffPolicy.exponential(MIN, MAX);
    assertEquals(policy, policy.withJitter(Jitter.full()), "the default jitter is full jitter");
  }

  @Test
  void step_rejectsNullsAndAttemptsBelowOne() {
    assertThrows(NullPointerException.class, () -> new Jitter.Step(1, null, MAX, MIN, MIN));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new Jitter.Step(0, MIN, MAX, MIN, MIN));
    assertEquals("attempt must be >= 1 but was 0", e.getMessage());
  }

  @Test
  void step_rejectsDurationsNoJitterCanComputeWith() {
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
    assertEquals(
        "bound must be <= PT2562047H47M16.854775807S but was " + huge,
        assertThrows(IllegalArgumentException.class, () -> new Jitter.Step(1, MIN, MAX, huge, MIN))
            .getMessage());
    assertEquals(
        "previous must be >= 0 but was PT-0.001S",
        assertThrows(
                IllegalArgumentException.class,
                () -> new Jitter.Step(1, MIN, MAX, MIN, Duration.ofMillis(-1)))
            .getMessage());
    assertEquals(
        "maxBackoff must be >= minBackoff PT10S but was PT0.1S",
        assertThrows(IllegalArgumentException.class, () -> new Jitter.Step(1, MAX, MIN, MIN, MIN))
            .getMessage());
    // the longest a step may carry still computes, without overflow
    Duration longest = Duration.ofNanos(Long.MAX_VALUE);
    assertEquals(longest, Jitter.none().delay(new Jitter.Step(1, MIN, longest, longest, MIN), 0.5));
  }
}
