package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import dev.supervision.backoff.reliability.Generators.Spec;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Every delay, for every policy that validation accepts and every attempt from 1 to 10^7, stays in
 * its jitter kind's range, is never negative and never above the cap.
 */
final class ScheduleBoundsPropertyTest {

  @Provide
  Arbitrary<Spec> specs() {
    return Generators.specs();
  }

  @Provide
  Arbitrary<Integer> attempts() {
    return Generators.attempts();
  }

  @Provide
  Arbitrary<Double> draws() {
    return Generators.draws();
  }

  @Provide
  Arbitrary<List<Double>> drawLists() {
    return Generators.draws().list().ofMinSize(1).ofMaxSize(300);
  }

  @Provide
  Arbitrary<Jitter> standardJitters() {
    return Arbitraries.of(Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none());
  }

  @Property(tries = 2000)
  void boundStartsAtMinGrowsByTheMultiplierAndStopsAtTheCap(
      @ForAll("specs") Spec spec, @ForAll("attempts") int a, @ForAll("attempts") int b) {
    long min = spec.minNanos();
    long max = spec.maxNanos();
    double m = spec.multiplier();
    assertEquals(min, DelaySchedule.boundNanos(min, max, m, 1), "attempt 1's bound is minBackoff");
    long boundA = DelaySchedule.boundNanos(min, max, m, a);
    long boundB = DelaySchedule.boundNanos(min, max, m, b);
    assertTrue(boundA >= min && boundA <= max, "bound outside [min, max]: " + boundA);
    assertTrue(
        Integer.compare(a, b) * Long.compare(boundA, boundB) >= 0,
        "bound not monotonic in the attempt");
    // min * m^(a-1), in log space so that it cannot overflow
    double logExact = Math.log(min) + (a - 1) * Math.log(m);
    if (logExact < Math.log(max) - 1e-9) {
      double exact = Math.exp(logExact);
      assertEquals(
          exact, boundA, Math.max(2.0, exact * 1e-9), "bound is min * multiplier^(attempt-1)");
    } else if (logExact > Math.log(max) + 1e-9) {
      assertEquals(max, boundA, "bound is capped at maxBackoff");
    }
  }

  @Property(tries = 3000)
  void everyStandardJitterStaysInItsRangeAtEveryAttempt(
      @ForAll("specs") Spec spec,
      @ForAll("standardJitters") Jitter jitter,
      @ForAll("attempts") int attempt,
      @ForAll("draws") double draw,
      @ForAll("draws") double previousFraction) {
    long min = spec.minNanos();
    long max = spec.maxNanos();
    long bound = DelaySchedule.boundNanos(min, max, spec.multiplier(), attempt);
    // a previous delay the schedule can produce: decorrelated delays never go below min
    long previous = min + (long) ((max - min) * previousFraction);
    Jitter.Step step =
        new Jitter.Step(
            attempt,
            Duration.ofNanos(min),
            Duration.ofNanos(max),
            Duration.ofNanos(bound),
            Duration.ofNanos(previous));
    long delay = jitter.delay(step, draw).toNanos();
    KindBounds.check(jitter, min, max, bound, previous, draw, delay);
  }

  @Property(tries = 1000)
  void scheduleWithFixedDrawsKeepsEveryDelayInItsRange(
      @ForAll("specs") Spec spec,
      @ForAll("drawLists") @Size(min = 1, max = 300) List<Double> draws) {
    long min = spec.minNanos();
    long max = spec.maxNanos();
    double[] fixed = draws.stream().mapToDouble(Double::doubleValue).toArray();
    DelaySchedule schedule =
        new DelaySchedule(
            Duration.ofNanos(min), Duration.ofNanos(max), spec.multiplier(), spec.jitter());
    FixedDraws random = new FixedDraws(fixed);
    long previous = min;
    for (int i = 0; i < fixed.length; i++) {
      long delay = schedule.nextDelayNanos(random);
      assertEquals(i + 1, schedule.attempt());
      long bound = DelaySchedule.boundNanos(min, max, spec.multiplier(), i + 1);
      KindBounds.check(spec.jitter(), min, max, bound, previous, fixed[i], delay);
      previous = delay;
    }
    schedule.reset();
    assertEquals(0, schedule.attempt(), "reset forgets the attempts");
    long first = schedule.nextDelayNanos(new FixedDraws(fixed[0]));
    KindBounds.check(spec.jitter(), min, max, min, min, fixed[0], first);
  }

  @Property(tries = 300)
  void policyDelaysStreamStaysWithinTheCap(
      @ForAll("specs") Spec spec, @ForAll long seed, @ForAll("maxRestarts") int maxRestarts) {
    var policy = spec.policy().withMaxRestarts(maxRestarts);
    List<Duration> delays = policy.delays(new SplittableRandom(seed)).toList();
    assertEquals(maxRestarts, delays.size(), "one delay per allowed restart");
    for (Duration d : delays) {
      assertTrue(
          !d.isNegative() && d.compareTo(policy.getMaxBackoff()) <= 0,
          "delay outside [0, max]: " + d);
    }
  }

  @Provide
  Arbitrary<Integer> maxRestarts() {
    return Arbitraries.integers().between(0, 200);
  }

  /** The one long run: 10^7 consecutive attempts of each standard kind, all within [0, cap]. */
  @Example
  void tenMillionConsecutiveAttemptsStayWithinTheCap() {
    for (Jitter jitter :
        List.of(Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none())) {
      Duration min = Duration.ofMillis(3);
      Duration max = Duration.ofDays(180);
      DelaySchedule schedule = new DelaySchedule(min, max, 1.0000037, jitter);
      SplittableRandom random = new SplittableRandom(7);
      long maxNanos = max.toNanos();
      long last = -1;
      for (int i = 1; i <= 10_000_000; i++) {
        long d = schedule.nextDelayNanos(random);
        if (d < 0 || d > maxNanos) {
          throw new AssertionError(jitter + " attempt " + i + " gave " + d);
        }
        last = d;
      }
      assertEquals(10_000_000, schedule.attempt());
      if (jitter == Jitter.none()) {
        assertEquals(maxNanos, last, "1.0000037^(10^7) is far above the cap");
      }
    }
  }
}
