package dev.supervision.backoff.internal.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.internal.util.StandardJitter;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A user jitter that throws, or returns null or a negative delay, gets full jitter on the same bound and draw. */
final class BrokenJitterFallsBackToFullJitterTest {

  static final Duration MIN = Duration.ofMillis(100);
  static final Duration MAX = Duration.ofSeconds(10);

  private static void fallsBack(Jitter broken, String problem) {
    DelaySchedule schedule = new DelaySchedule(MIN, MAX, 2.0, broken);
    SplittableRandom random = new SplittableRandom(42);
    SplittableRandom twin = new SplittableRandom(42);
    for (int attempt = 1; attempt <= 3; attempt++) {
      long bound = DelaySchedule.boundNanos(MIN.toNanos(), MAX.toNanos(), 2.0, attempt);
      long expected =
          StandardJitter.FULL.delayNanos(MIN.toNanos(), MAX.toNanos(), bound, 0, twin.nextDouble());
      assertEquals(expected, schedule.nextDelayNanos(random), problem + ", attempt " + attempt);
      DelaySchedule.BrokenJitter what = schedule.takeBrokenJitter();
      assertSame(broken, what.jitter());
      assertEquals(attempt, what.attempt());
      assertEquals(problem, what.problem());
      assertNull(schedule.takeBrokenJitter(), "taken once");
    }
  }

  @Test
  void aJitterThatThrows() {
    Jitter throwing =
        (step, draw) -> {
          throw new ArithmeticException("/ by zero");
        };
    fallsBack(throwing, "threw java.lang.ArithmeticException: / by zero");
    DelaySchedule schedule = new DelaySchedule(MIN, MAX, 2.0, throwing);
    schedule.nextDelayNanos(new SplittableRandom(1));
    assertInstanceOf(ArithmeticException.class, schedule.takeBrokenJitter().threw());
  }

  @Test
  void aJitterThatReturnsNull() {
    fallsBack((step, draw) -> null, "returned null");
  }

  @Test
  void aJitterThatReturnsANegativeDelay() {
    fallsBack((step, draw) -> Duration.ofNanos(-1), "returned a negative delay PT-0.000000001S");
  }

  @Test
  void aWorkingJitterReportsNothing() {
    DelaySchedule schedule = new DelaySchedule(MIN, MAX, 2.0, (step, draw) -> step.bound());
    assertEquals(MIN.toNanos(), schedule.nextDelayNanos(new SplittableRandom(1)));
    assertNull(schedule.takeBrokenJitter());
  }
}
