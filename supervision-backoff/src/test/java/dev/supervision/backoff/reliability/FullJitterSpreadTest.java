package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.SplittableRandom;
import org.apache.commons.math3.distribution.UniformRealDistribution;
import org.apache.commons.math3.stat.inference.ChiSquareTest;
import org.apache.commons.math3.stat.inference.KolmogorovSmirnovTest;
import org.junit.jupiter.api.Test;

/**
 * Full jitter spreads its delays uniformly over {@code [0, bound)}: Kolmogorov-Smirnov and
 * chi-square tests at fixed seeds (deterministic, no timing), each with a negative control that shows
 * the test would notice a narrower spread.
 */
final class FullJitterSpreadTest {

  private static final int N = 20_000;
  private static final double ALPHA = 0.001;

  /** Delays of attempts 11.. of a policy whose bound reaches the 1 s cap at attempt 5. */
  private static double[] cappedDelaysMillis(Jitter jitter, long seed) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1)).withJitter(jitter);
    return policy
        .delays(new SplittableRandom(seed))
        .skip(10)
        .limit(N)
        .mapToDouble(d -> d.toNanos() / 1e6)
        .toArray();
  }

  @Test
  void fullJitterDelaysAreUniformOnZeroToCap_kolmogorovSmirnov() {
    UniformRealDistribution uniform = new UniformRealDistribution(0, 1000);
    for (long seed : new long[] {1, 42, 20261129}) {
      double p =
          new KolmogorovSmirnovTest()
              .kolmogorovSmirnovTest(uniform, cappedDelaysMillis(Jitter.full(), seed));
      assertTrue(
          p > ALPHA, "seed " + seed + ": full jitter is not uniform on [0, 1000) ms, p = " + p);
    }
    // negative control: equal jitter lives on [500, 1000) and must be rejected
    double p =
        new KolmogorovSmirnovTest()
            .kolmogorovSmirnovTest(uniform, cappedDelaysMillis(Jitter.equal(), 1));
    assertTrue(p < 1e-9, "the KS test cannot tell [500, 1000) from [0, 1000): p = " + p);
  }

  @Test
  void fullJitterDelaysFillEveryTwentiethOfTheBound_chiSquare() {
    int bins = 20;
    for (long seed : new long[] {1, 42, 20261129}) {
      long[] observed = histogram(cappedDelaysMillis(Jitter.full(), seed), bins);
      double[] expected = new double[bins];
      java.util.Arrays.fill(expected, (double) N / bins);
      double p = new ChiSquareTest().chiSquareTest(expected, observed);
      assertTrue(p > ALPHA, "seed " + seed + ": full jitter's 20 bins are uneven, p = " + p);
    }
  }

  /** Before the cap, attempt n's delays are uniform on [0, min * 2^(n-1)): check attempt 3. */
  @Test
  void fullJitterDelaysOfAnUncappedAttemptAreUniformOnItsBound() {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10));
    SplittableRandom seeds = new SplittableRandom(7);
    double[] third = new double[5000];
    for (int i = 0; i < third.length; i++) {
      third[i] =
          policy
                  .delays(new SplittableRandom(seeds.nextLong()))
                  .skip(2)
                  .findFirst()
                  .orElseThrow()
                  .toNanos()
              / 1e6;
    }
    double p =
        new KolmogorovSmirnovTest()
            .kolmogorovSmirnovTest(new UniformRealDistribution(0, 400), third);
    assertTrue(p > ALPHA, "attempt 3 is not uniform on [0, 400) ms, p = " + p);
    assertEquals(0, java.util.Arrays.stream(third).filter(d -> d < 0 || d >= 400).count());
  }

  private static long[] histogram(double[] millis, int bins) {
    long[] counts = new long[bins];
    for (double ms : millis) {
      counts[Math.min(bins - 1, (int) (ms / 1000 * bins))]++;
    }
    return counts;
  }
}
