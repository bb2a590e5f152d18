package dev.supervision.bench;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.internal.DelaySchedule;
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
 * <ul>
 *   <li>{@link #schedule()}: the internal {@code DelaySchedule.nextDelayNanos} with a {@code
 *       SplittableRandom}, exactly what the supervisor calls on each failure.
 *   <li>{@link #policyDelays()}: the public {@code BackoffPolicy.delays(rng)} stream's iterator,
 *       which adds a {@code Duration} and the stream machinery.
 * </ul>
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

  private DelaySchedule schedule;
  private SplittableRandom random;
  private BackoffPolicy policy;
  private Iterator<Duration> delays;
  private int drawn;

  /** Builds the schedule and the policy stream. */
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
    schedule = new DelaySchedule(MIN, MAX, 2.0, j);
    policy = BackoffPolicy.exponential(MIN, MAX).withJitter(j);
    delays = policy.delays(new SplittableRandom(42)).iterator();
  }

  /**
   * One draw from the supervisor's internal schedule.
   *
   * @return the delay in nanoseconds
   */
  @Benchmark
  public long schedule() {
    if (schedule.attempt() == CYCLE) {
      schedule.reset();
    }
    return schedule.nextDelayNanos(random);
  }

  /**
   * One draw from the public stream, restarted every {@value #CYCLE} draws like the schedule (so
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
