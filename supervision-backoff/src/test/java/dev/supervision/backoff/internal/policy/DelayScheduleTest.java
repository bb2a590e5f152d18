package dev.supervision.backoff.internal.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The schedule's arithmetic: growth, cap, saturation, reset, clamping of custom jitters. */
final class DelayScheduleTest {

  static final Duration MIN = Duration.ofMillis(100);
  static final Duration MAX = Duration.ofSeconds(1);
  static final long MAX_NANOS = MAX.toNanos();

  /** A generator that always draws the same value. */
  static RandomGenerator fixed(double draw) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new UnsupportedOperationException();
      }

      @Override
      public double nextDouble() {
        return draw;
      }
    };
  }

  @Test
  void boundGrowsByTheMultiplierAndStopsAtTheCap() {
    long min = MIN.toNanos();
    assertEquals(min, DelaySchedule.boundNanos(min, MAX_NANOS, 2.0, 1));
    assertEquals(2 * min, DelaySchedule.boundNanos(min, MAX_NANOS, 2.0, 2));
    assertEquals(8 * min, DelaySchedule.boundNanos(min, MAX_NANOS, 2.0, 4));
    assertEquals(MAX_NANOS, DelaySchedule.boundNanos(min, MAX_NANOS, 2.0, 5));
    assertEquals(min, DelaySchedule.boundNanos(min, MAX_NANOS, 1.0, 1_000));
  }

  @Test
  void boundIsTheCapFromTheAttemptWhoseProductReachesIt() {
    assertEquals(800, DelaySchedule.boundNanos(100, 800, 2.0, 4)); // 100 * 2^3 = 800 = cap
    assertEquals(799, DelaySchedule.boundNanos(100, 799, 2.0, 4)); // 800 > cap
    assertEquals(400, DelaySchedule.boundNanos(100, 799, 2.0, 3));
    assertEquals(250, DelaySchedule.boundNanos(100, 1_000, 2.5, 2)); // a fractional multiplier
  }

  @Test
  void boundAboveTwoToThe53NanosIsTheProductWhenItIsBelowTheCap() {
    // 2^53 ns (about 104 days) is below the cap 2^53 + 1, although both are the same double
    long twoTo53 = 1L << 53;
    assertEquals(twoTo53, DelaySchedule.boundNanos(twoTo53 / 2, twoTo53 + 1, 2.0, 2));
    assertEquals(twoTo53 + 1, DelaySchedule.boundNanos(twoTo53 / 2, twoTo53 + 1, 2.0, 3));
  }

  @Test
  void aFatalErrorOfAJitterIsNotSwallowed() {
    LinkageError fatal = new LinkageError("fatal");
    DelaySchedule schedule =
        new DelaySchedule(
            MIN,
            MAX,
            2.0,
            (step, draw) -> {
              throw fatal;
            });
    assertSame(fatal, assertThrows(LinkageError.class, () -> schedule.nextDelayNanos(fixed(0.5))));
  }

  @Test
  void boundSaturatesAtTheCapForHugeAttempts() {
    long min = MIN.toNanos();
    for (int attempt : new int[] {64, 1_000, 1_000_000, Integer.MAX_VALUE}) {
      assertEquals(MAX_NANOS, DelaySchedule.boundNanos(min, MAX_NANOS, 2.0, attempt));
      assertEquals(MAX_NANOS, DelaySchedule.boundNanos(min, MAX_NANOS, 10.0, attempt));
    }
    long days = Duration.ofDays(180).toNanos();
    assertEquals(days, DelaySchedule.boundNanos(1, days, 1.0000001, Integer.MAX_VALUE));
  }

  @Test
  void attemptOneMillionIsWithinTheCapForEveryJitter() {
    for (Jitter jitter :
        List.of(Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none())) {
      DelaySchedule schedule = new DelaySchedule(MIN, MAX, 2.0, jitter);
      SplittableRandom random = new SplittableRandom(1);
      long last = 0;
      for (int i = 0; i < 1_000_000; i++) {
        last = schedule.nextDelayNanos(random);
        assertTrue(
            last >= 0 && last <= MAX_NANOS, jitter + " attempt " + (i + 1) + " gave " + last);
      }
      assertEquals(1_000_000, schedule.attempt());
      if (jitter == Jitter.none()) {
        assertEquals(MAX_NANOS, last);
      }
    }
  }

  @Test
  void resetStartsTheScheduleOver() {
    DelaySchedule schedule = new DelaySchedule(MIN, MAX, 2.0, Jitter.none());
    RandomGenerator r = fixed(0.5);
    schedule.nextDelayNanos(r);
    schedule.nextDelayNanos(r);
    assertEquals(400_000_000L, schedule.nextDelayNanos(r));
    schedule.reset();
    assertEquals(0, schedule.attempt());
    assertEquals(100_000_000L, schedule.nextDelayNanos(r));
  }

  @Test
  void fullJitterUsesTheDrawOnTheCurrentBound() {
    DelaySchedule schedule = new DelaySchedule(MIN, MAX, 2.0, Jitter.full());
    RandomGenerator r = fixed(0.5);
    assertEquals(50_000_000L, schedule.nextDelayNanos(r));
    assertEquals(100_000_000L, schedule.nextDelayNanos(r));
    assertEquals(200_000_000L, schedule.nextDelayNanos(r));
  }

  @Test
  void decorrelatedJitterGrowsFromThePreviousDelayAndStartsAgainAfterAReset() {
    DelaySchedule schedule =
        new DelaySchedule(MIN, Duration.ofSeconds(100), 2.0, Jitter.decorrelated());
    RandomGenerator top = fixed(0.999999);
    long first = schedule.nextDelayNanos(top); // close to 3 * min
    long second = schedule.nextDelayNanos(top); // close to 3 * first
    assertTrue(first > 299_000_000L && first < 300_000_000L, "first " + first);
    assertTrue(second > 3 * first - 1_000_000L && second < 3 * first, "second " + second);
    schedule.reset();
    assertEquals(first, schedule.nextDelayNanos(top));
  }

  @Test
  void customJitterResultsAreClampedToTheCapAndANegativeOneGetsFullJitter() {
    DelaySchedule tooLong =
        new DelaySchedule(MIN, MAX, 2.0, (step, draw) -> Duration.ofDays(1000 * 365));
    assertEquals(MAX_NANOS, tooLong.nextDelayNanos(fixed(0.1)));
    DelaySchedule negative =
        new DelaySchedule(MIN, MAX, 2.0, (step, draw) -> Duration.ofSeconds(-5));
    // a broken jitter: full jitter on the bound (MIN for attempt 1) with the same draw
    assertEquals(MIN.toNanos() / 10, negative.nextDelayNanos(fixed(0.1)));
    assertEquals("returned a negative delay PT-5S", negative.takeBrokenJitter().problem());
  }

  @Test
  void customJitterSeesTheStep() {
    Jitter.Step[] seen = new Jitter.Step[1];
    DelaySchedule schedule =
        new DelaySchedule(
            MIN,
            MAX,
            3.0,
            (step, draw) -> {
              seen[0] = step;
              return step.bound();
            });
    schedule.nextDelayNanos(fixed(0.3));
    schedule.nextDelayNanos(fixed(0.3));
    assertEquals(new Jitter.Step(2, MIN, MAX, Duration.ofMillis(300), MIN), seen[0]);
  }

  @Test
  void customJitterReturningNullGetsFullJitterAndIsReported() {
    DelaySchedule schedule = new DelaySchedule(MIN, MAX, 2.0, (step, draw) -> null);
    assertEquals(MIN.toNanos() / 10, schedule.nextDelayNanos(fixed(0.1)));
    DelaySchedule.BrokenJitter broken = schedule.takeBrokenJitter();
    assertEquals(1, broken.attempt());
    assertEquals("returned null", broken.problem());
  }
}
