package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.reliability.Generators.Spec;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The same seed gives the same schedule; a different seed gives a different full-jitter schedule. */
final class SameSeedSameSchedulePropertyTest {

  @Provide
  Arbitrary<Spec> specs() {
    return Generators.specs();
  }

  @Provide
  Arbitrary<Integer> lengths() {
    return Arbitraries.integers().between(1, 500);
  }

  @Property(tries = 500)
  void sameSeedGivesTheSameDelays(
      @ForAll("specs") Spec spec, @ForAll long seed, @ForAll("lengths") int n) {
    BackoffPolicy policy = spec.policy();
    List<Duration> first = policy.delays(new SplittableRandom(seed)).limit(n).toList();
    List<Duration> again = policy.delays(new SplittableRandom(seed)).limit(n).toList();
    assertEquals(first, again);
    // and an equal policy built separately draws the same schedule too
    List<Duration> rebuilt = spec.policy().delays(new SplittableRandom(seed)).limit(n).toList();
    assertEquals(first, rebuilt);
  }

  @Property(tries = 300)
  void differentSeedsGiveDifferentFullJitterDelays(
      @ForAll("specs") Spec spec, @ForAll long seed, @ForAll long otherSeed) {
    Assume.that(seed != otherSeed);
    BackoffPolicy policy = spec.policy().withJitter(Jitter.full());
    List<Duration> a = policy.delays(new SplittableRandom(seed)).limit(8).toList();
    List<Duration> b = policy.delays(new SplittableRandom(otherSeed)).limit(8).toList();
    // each full-jitter delay spreads over >= 1 ms = 10^6 ns; 8 equal draws would be a broken
    // generator
    assertNotEquals(a, b);
  }

  /**
   * Literal values beside the properties above, whose expectations come from the code itself: with
   * draws fixed by hand, full jitter is {@code bound * u} on the bounds 100, 200, 400, 800 ms, 1 s.
   */
  @Example
  void fixedDrawsGiveTheseLiteralFullJitterDelays() {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.full());
    List<Duration> delays =
        policy.delays(new FixedDraws(0.5, 0.25, 0.75, 0.125, 0.875)).limit(5).toList();
    assertEquals(
        List.of(
            Duration.ofMillis(50),
            Duration.ofMillis(50),
            Duration.ofMillis(300),
            Duration.ofMillis(100),
            Duration.ofMillis(875)),
        delays);
  }

  /**
   * Seed 42, full jitter, 100 ms to 1 s: these exact delays, on every run and every machine. The
   * values are {@code (long) (bound * u)} with {@code u} the JDK's {@code new SplittableRandom(42)}
   * draws, computed outside the library; a second seed gives other literal values.
   */
  @Example
  void seed42GivesTheseLiteralDelaysAndSeed7OtherOnes() {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.full());
    assertEquals(
        List.of(
            74_156_487L,
            31_982_078L,
            111_440_452L,
            275_352_573L,
            38_030_168L,
            868_228_076L,
            218_405_193L,
            800_631_876L),
        policy.delays(new SplittableRandom(42)).limit(8).map(Duration::toNanos).toList());
    assertEquals(
        List.of(38_982_974L, 3_357_658L, 360_304_272L),
        policy.delays(new SplittableRandom(7)).limit(3).map(Duration::toNanos).toList());
  }
}
