package dev.supervision.herd;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.stream.BackoffSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.RestartSettings;
import org.apache.pekko.stream.javadsl.RestartSource;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The stream rows of the real mode: each cell is a restartable source instead of a supervised
 * actor. A cell's actor only hosts its stream: it materializes it when it starts and, on the
 * strike, completes the future the stream's query waits for. The inner source connects when it is
 * first pulled (at once: {@code Sink.ignore} pulls when the stream starts), waits for the strike,
 * then queries once with its connection and idles; a restart therefore makes exactly one call, the
 * connect, as an actor cell's restart does. No {@code lazySource}: the connect is an ordinary
 * stage, so a failed connect fails the inner source and nothing logs it at ERROR.
 */
final class StreamRows {

  private StreamRows() {}

  /**
   * A cell as a restartable stream.
   *
   * @param index the cell
   * @param resource the resource it calls
   * @param restartable wraps the cell's inner source factory in a restartable source, given the
   *     stream's name
   * @return the behavior of the actor that hosts the stream
   */
  static Behavior<Cell.Command> cell(
      int index,
      SimulatedResource resource,
      BiFunction<String, Creator<Source<Integer, ?>>, Source<Integer, NotUsed>> restartable) {
    return Behaviors.setup(
        ctx -> {
          CompletableFuture<Integer> struck = new CompletableFuture<>();
          Creator<Source<Integer, ?>> inner =
              () ->
                  Source.single(index)
                      .map(resource::connect) // throws while the resource is down
                      .flatMapConcat(
                          connection ->
                              Source.completionStage(struck)
                                  .map(
                                      strike -> {
                                        resource.query(index, connection); // throws if it broke
                                        return strike;
                                      })
                                  .concat(Source.never()));
          restartable
              .apply("cell-" + index, inner)
              .runWith(Sink.ignore(), Materializer.matFromSystem(ctx.getSystem()));
          return Behaviors.receiveMessage(
              call -> {
                struck.complete(1);
                return Behaviors.same();
              });
        });
  }

  /** Pekko's {@code RestartSource.withBackoff(RestartSettings.create(min, max, 0.2), factory)}. */
  static final class PekkoRestartSource extends NamedStrategy {
    PekkoRestartSource(String id, HerdScenario s) {
      super(
          id,
          "Pekko RestartSource.withBackoff(RestartSettings.create("
              + RowSupport.bounds(s)
              + ", 0.2))");
    }

    @Override
    public RealRun real(HerdScenario s) {
      RestartSettings settings =
          RestartSettings.create(RowSupport.realMin(s), RowSupport.realMax(s), 0.2);
      return streams((name, inner) -> RestartSource.withBackoff(settings, inner));
    }

    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      return Optional.empty();
    }
  }

  /** This library's {@code BackoffSource.withBackoff} with full jitter, optionally a budget. */
  static final class OursSource extends NamedStrategy {
    private final boolean adaptive;

    OursSource(String id, HerdScenario s, boolean adaptive) {
      super(
          id,
          "ours, BackoffSource.withBackoff, Jitter.full(), "
              + RowSupport.bounds(s)
              + (adaptive ? ", adaptive budget" : ""));
      this.adaptive = adaptive;
    }

    @Override
    public RealRun real(HerdScenario s) {
      BackoffPolicy base = RowSupport.realPolicy(s, Jitter.full());
      BackoffPolicy policy =
          RowSupport.logged(
              adaptive ? base.withBudget(RestartBudget.adaptive("herd-stream-adaptive")) : base, s);
      return streams((name, inner) -> BackoffSource.withBackoff(name, policy, inner));
    }

    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      return Optional.empty();
    }
  }

  private static HerdStrategy.RealRun streams(
      BiFunction<String, Creator<Source<Integer, ?>>, Source<Integer, NotUsed>> restartable) {
    return new HerdStrategy.RealRun() {
      @Override
      public Behavior<Cell.Command> supervise(Behavior<Cell.Command> cell, int index) {
        throw new UnsupportedOperationException("a stream row's cells are not supervised actors");
      }

      @Override
      public Behavior<Cell.Command> cell(int index, SimulatedResource resource) {
        return StreamRows.cell(index, resource, restartable);
      }
    };
  }
}
