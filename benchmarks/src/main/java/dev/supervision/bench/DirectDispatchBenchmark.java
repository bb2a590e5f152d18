package dev.supervision.bench;

import dev.supervision.bench.Counter.Inc;
import dev.supervision.bench.Counter.Kind;
import dev.supervision.bench.Counter.Msg;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
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
 * The supervisor's own cost per message, without mailbox or dispatcher: the counter of each kind is
 * started on the context of a real (idle) host actor, and each operation hands it one message with
 * {@code Behavior.interpretMessage}, the call Pekko's actor adapter makes for every message. For the
 * bare kind that is the counter's lambda; for PEKKO and INTERCEPT it is Pekko's interceptor chain
 * ({@code InterceptorImpl} plus the interceptor's {@code aroundReceive}) around the same lambda; for
 * WRAP it is the supervisor's {@code receive}, which interprets the lambda itself.
 * Sampled per batch of {@value #BATCH} messages (JMH reports ns per batch; the report divides by the
 * batch size, since JMH would truncate a per-message figure to whole nanoseconds); the report uses
 * the median sample, which a busy
 * machine's context switches do not move (the mean they do).
 *
 * <p>The context is used from the benchmark thread while its actor is idle (it never receives a
 * message); publication is safe through the {@code CompletableFuture}. No path taken here touches
 * the context's thread-confined parts (spawning, timers, logging), since nothing fails.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DirectDispatchBenchmark {

  /** Messages per timed sample: long enough for the timer (about 30 us), short enough that few
   * samples are hit by a context switch on a loaded machine, so the median shows the CPU cost. */
  static final int BATCH = 1_000;

  /** Which counter to run. */
  @Param({"BARE", "PEKKO", "WRAP", "INTERCEPT"})
  public Kind kind;

  private ActorSystem<Void> system;
  private TypedActorContext<Msg> ctx;
  private Behavior<Msg> current;

  /** The host actor's context and the counter started on it. */
  private record Hosted(TypedActorContext<Msg> ctx, Behavior<Msg> started) {}

  /** Starts the host actor and, on its thread, the counter of the given kind. */
  @Setup
  @SuppressWarnings("unchecked")
  public void start() throws Exception {
    CompletableFuture<Hosted> hosted = new CompletableFuture<>();
    Behavior<Void> host =
        Behaviors.setup(
            c -> {
              TypedActorContext<Msg> tctx = (TypedActorContext<Msg>) (TypedActorContext<?>) c;
              Behavior<Msg> started =
                  Behavior.validateAsInitial(Behavior.start(kind.behavior(), tctx));
              hosted.complete(new Hosted(tctx, started));
              return Behaviors.empty();
            });
    system = ActorSystem.create(host, "direct-" + kind.name().toLowerCase(), Pekko.config());
    Hosted h = hosted.get(1, TimeUnit.MINUTES);
    ctx = h.ctx();
    current = h.started();
  }

  /**
   * Delivers {@value #BATCH} messages, one at a time, exactly as the actor adapter would.
   *
   * @return the behavior for the next message, so the work cannot be eliminated
   */
  @Benchmark
  public Behavior<Msg> interpretBatch() {
    Behavior<Msg> b = current;
    for (int i = 0; i < BATCH; i++) {
      b = Behavior.canonicalize(Behavior.interpretMessage(b, ctx, Inc.INSTANCE), b, ctx);
    }
    current = b;
    return b;
  }

  /** Stops the actor system. */
  @TearDown
  public void stop() throws Exception {
    Pekko.terminate(system);
  }
}
