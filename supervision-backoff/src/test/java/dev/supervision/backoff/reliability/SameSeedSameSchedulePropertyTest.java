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
  void sameSeedGivesTheSameDelays(@ForAll("specs") Spec spec, @ForAll long seed, @ForAll("lengths") int n) {
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
    // each full-jitter delay spreads over >= 1 ms = 10^6 ns; 8 equal draws would be a broken generator
    assertNotEquals(a, b);
  }
}
