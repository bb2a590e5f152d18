package dev.supervision.bench;

import dev.supervision.bench.Counter.Flush;
import dev.supervision.bench.Counter.Hold;
import dev.supervision.bench.Counter.Inc;
import dev.supervision.bench.Counter.Kind;
import dev.supervision.bench.Counter.Msg;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The throughput of one busy actor: how fast it works through a full mailbox, through the real
 * mailbox and the default dispatcher (which hands the actor back to the pool every 5 messages).
 *
 * <p>Before each timed sample (untimed, {@code Level.Invocation}) the actor is made to wait on a
 * latch ({@link Hold}) and the benchmark thread fills its mailbox with {@value #BATCH} {@code Inc}
 * and a {@code Flush}. The timed part opens the latch and waits for the count. So a sample is the
 * actor dequeuing and handling {@value #BATCH} messages back to back, plus one wake-up of the
 * benchmark thread (the same for every kind, about 0.1 % of a sample); the sender's enqueuing and
 * the race between sender and actor are outside it. That race is what makes {@link
 * MailboxThroughputBenchmark} noisy: there an actor that keeps up with the sender goes idle and
 * must be woken for the next message, so a slower actor can come out faster.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BacklogThroughputBenchmark {

  /** Messages per sample. */
  static final int BATCH = 10_000;

  /**
   * Which counter to run (INTERCEPT: a do-nothing interceptor, the layer WRAP no longer has;
   * BARE_AGAIN: BARE again, to show how far two identical actors land apart in this harness).
   */
  @Param({"BARE", "PEKKO", "WRAP", "INTERCEPT", "BARE_AGAIN"})
  public Kind kind;

  /**
   * The default dispatcher's {@code throughput}: how many messages the actor handles before its
   * mailbox goes back to the pool. 5 is Pekko's default: every 5 messages the pool hands the actor
   * to a worker, whose wake-ups on 2 cores swing a sample by a factor of 2 to 3. At 100 that
   * hand-off is amortized, and what is left is the actor's own cost per message (mailbox, actor
   * adapter, behavior).
   */
  @Param({"5", "100"})
  public int throughput;

  private ActorSystem<Msg> system;
  private long expected;
  private CountDownLatch release;
  private CompletableFuture<Long> done;

  /** Starts an actor system whose guardian is the counter of the given kind. */
  @Setup(Level.Trial)
  public void start() {
    system =
        ActorSystem.create(
            kind.behavior(),
            "backlog-" + kind.name().toLowerCase(),
            com.typesafe.config.ConfigFactory.parseString(
                    "pekko.actor.default-dispatcher.throughput = " + throughput)
                .withFallback(Pekko.config()));
  }

  /**
   * Holds the actor and fills its mailbox (not timed).
   *
   * @throws InterruptedException if interrupted while waiting for the actor to hold
   */
  @Setup(Level.Invocation)
  public void fill() throws InterruptedException {
    CountDownLatch holding = new CountDownLatch(1);
    release = new CountDownLatch(1);
    system.tell(new Hold(holding, release));
    if (!holding.await(1, TimeUnit.MINUTES)) {
      throw new IllegalStateException("the actor did not start to hold");
    }
    for (int i = 0; i < BATCH; i++) {
      system.tell(Inc.INSTANCE);
    }
    done = new CompletableFuture<>();
    system.tell(new Flush(done::complete));
  }

  /**
   * Lets the actor go and waits until it has counted the whole backlog.
   *
   * @return the count, so the work cannot be eliminated
   */
  @Benchmark
  public long drain() {
    release.countDown();
    long count = done.join();
    expected += BATCH;
    if (count != expected) {
      throw new IllegalStateException("counted " + count + " but sent " + expected);
    }
    return count;
  }

  /** Stops the actor system. */
  @TearDown(Level.Trial)
  public void stop() throws Exception {
    release.countDown();
    Pekko.terminate(system);
  }
}
