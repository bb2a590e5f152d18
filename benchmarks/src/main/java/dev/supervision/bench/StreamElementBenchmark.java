package dev.supervision.bench;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.BackoffSource;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.RestartSettings;
import org.apache.pekko.stream.javadsl.RestartSource;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost per element of a running restartable source, side by side in one run: the bare source
 * ({@code BARE}), the same source in Pekko's {@code RestartSource.onFailuresWithBackoff} ({@code
 * PEKKO}) and in {@code BackoffSource.onFailuresWithBackoff} ({@code BACKOFF}). One operation is
 * one element of a 100,000-element {@code Source.range} run into {@code Sink.ignore} (the
 * materialization is spread over the elements). Nothing fails: this is the price of the wrapper on
 * the happy path. {@code onFailuresWithBackoff}, so that the completion ends the stream.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class StreamElementBenchmark {

  static final int ELEMENTS = 100_000;

  /** Which source runs. */
  @Param({"BARE", "PEKKO", "BACKOFF"})
  public String kind;

  private ActorSystem<Void> system;
  private Source<Integer, NotUsed> source;

  /** Starts the actor system and builds the source (materialized once per operation batch). */
  @Setup(Level.Trial)
  public void setup() {
    system = ActorSystem.create(Behaviors.empty(), "stream-bench");
    Source<Integer, NotUsed> inner = Source.range(1, ELEMENTS);
    Duration min = Duration.ofMillis(100);
    Duration max = Duration.ofSeconds(20);
    source =
        switch (kind) {
          case "BARE" -> inner;
          case "PEKKO" ->
              RestartSource.onFailuresWithBackoff(
                  RestartSettings.create(min, max, 0.2), () -> inner);
          case "BACKOFF" ->
              BackoffSource.onFailuresWithBackoff(BackoffPolicy.exponential(min, max), () -> inner);
          default -> throw new IllegalArgumentException("unknown kind " + kind);
        };
  }

  /** Stops the actor system. */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /**
   * Runs the source to its end.
   *
   * @return done
   * @throws Exception if the stream fails
   */
  @Benchmark
  @OperationsPerInvocation(ELEMENTS)
  public Done run() throws Exception {
    return source.runWith(Sink.ignore(), system).toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
