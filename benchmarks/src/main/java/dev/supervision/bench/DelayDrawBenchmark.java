package dev.supervision.bench;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.Iterator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cost of drawing one restart delay, per jitter kind, with min 100 ms, max 10 s and multiplier
 * 2. Attempts cycle through 1..8 (bounds 0.1 s to 10 s, the last one capped), so both the
 * exponential and the capped branch are in the mix.
 *
 * <p>{@link #policyDelays()} draws from the public {@code BackoffPolicy.delays(rng)} stream's
 * iterator: the schedule the supervisor draws from on each failure, plus a {@code Duration} and the
 * stream machinery. (The supervisor's own schedule is internal to the core; this module uses only
 * the core's API and extension point.)
 *
 * <p>{@link PekkoDelayBenchmark} measures Pekko's own computation for reference.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DelayDrawBenchmark {

  /** The jitter kind. */
  @Param({"full", "equal", "decorrelated", "none"})
  public String jitter;

  private static final Duration MIN = Duration.ofMillis(100);
  private static final Duration MAX = Duration.ofSeconds(10);
  private static final int CYCLE = 8;

  private SplittableRandom random;
  private BackoffPolicy policy;
  private Iterator<Duration> delays;
  private int drawn;

  /** Builds the policy stream. */
  @Setup
  public void setup() {
    Jitter j =
        switch (jitter) {
          case "full" -> Jitter.full();
          case "equal" -> Jitter.equal();
          case "decorrelated" -> Jitter.decorrelated();
          case "none" -> Jitter.none();
          default -> throw new IllegalArgumentException("unknown jitter " + jitter);
        };
    random = new SplittableRandom(42);
    policy = BackoffPolicy.exponential(MIN, MAX).withJitter(j);
    delays = policy.delays(new SplittableRandom(42)).iterator();
  }

  /**
   * One draw from the public stream, restarted every {@value #CYCLE} draws (so
   * an eighth of a stream's creation is in each operation).
   *
   * @return the delay
   */
  @Benchmark
  public Duration policyDelays() {
    if (++drawn > CYCLE) {
      drawn = 1;
      delays = policy.delays(random).iterator();
    }
    return delays.next();
  }
}
