package dev.supervision.bench;

import dev.supervision.bench.Counter.Flush;
import dev.supervision.bench.Counter.Inc;
import dev.supervision.bench.Counter.Kind;
import dev.supervision.bench.Counter.Msg;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * End-to-end message throughput of one actor, through a real mailbox and the default dispatcher:
 * the benchmark thread tells {@value #BATCH} {@code Inc} messages, then a {@code Flush}, and waits
 * for the count. Each batch is one timed sample (JMH reports ns per batch; the report divides by the
 * batch size, since JMH would truncate the per-message figure to whole nanoseconds), and it uses
 * the median sample (robust to the context switches of a busy machine). This is what a user sees, but the mailbox and the
 * dispatcher dominate it; {@link DirectDispatchBenchmark} isolates the supervisor's own cost.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MailboxThroughputBenchmark {

  /** Messages per invocation; large enough that the final round trip is under 1 % of it. */
  static final int BATCH = 10_000;

  /** Which counter to run. */
  @Param({"BARE", "PEKKO", "WRAP"})
  public Kind kind;

  private ActorSystem<Msg> system;
  private long expected;

  /** Starts an actor system whose guardian is the counter of the given kind. */
  @Setup
  public void start() {
    system =
        ActorSystem.create(kind.behavior(), "mailbox-" + kind.name().toLowerCase(), Pekko.config());
  }

  /**
   * Sends one batch and waits until the actor has counted all of it.
   *
   * @return the count, so the work cannot be eliminated
   */
  @Benchmark
  public long tellBatch() {
    for (int i = 0; i < BATCH; i++) {
      system.tell(Inc.INSTANCE);
    }
    CompletableFuture<Long> done = new CompletableFuture<>();
    system.tell(new Flush(done::complete));
    long count = done.join();
    expected += BATCH;
    if (count != expected) {
      throw new IllegalStateException("counted " + count + " but sent " + expected);
    }
    return count;
  }

  /** Stops the actor system. */
  @TearDown
  public void stop() throws Exception {
    Pekko.terminate(system);
  }
}
