package dev.supervision.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import scala.concurrent.duration.FiniteDuration;

/**
 * For reference: Pekko's own restart-delay computation, {@code
 * org.apache.pekko.pattern.BackoffSupervisor.calculateDelay} (an internal Pekko API that its typed
 * {@code restartWithBackoff} also uses), with min 100 ms, max 10 s, random factor 0.2 and attempts
 * cycling through 0..7, as in {@link DelayDrawBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PekkoDelayBenchmark {

  private static final int CYCLE = 8;
  private final FiniteDuration min = FiniteDuration.apply(100, TimeUnit.MILLISECONDS);
  private final FiniteDuration max = FiniteDuration.apply(10, TimeUnit.SECONDS);
  private int attempt;

  /**
   * One delay.
   *
   * @return the delay
   */
  @Benchmark
  public FiniteDuration calculateDelay() {
    int n = attempt;
    attempt = n + 1 == CYCLE ? 0 : n + 1;
    return org.apache.pekko.pattern.BackoffSupervisor$.MODULE$.calculateDelay(n, min, max, 0.2);
  }
}
