package dev.supervision.backoff.stream.internal;

import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.SinkShape;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * A sink that feeds the factory's sink and starts a new one after each cancellation, failed or
 * not. An element that the outer upstream pushes during a backoff waits in the port for the next
 * inner sink.
 *
 * @param <T> the element type
 */
public final class SinkStage<T> extends RestartStage<SinkShape<T>, Sink<T, ?>> {

  private final Inlet<T> in = shape().in();

  /**
   * A new stage.
   *
   * @param spec the stage's settings
   * @param factory makes each inner sink
   */
  public SinkStage(StreamSpec spec, Creator<Sink<T, ?>> factory) {
    super(spec, factory, SinkShape.of(Inlet.create("BackoffSink.in")), "BackoffSink");
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new RestartLogic(shape(), spec, inheritedAttributes) {

      private final Feed<T> feed = new Feed<>(in, "BackoffSink.subOut");

      @Override
      protected void startInner() throws Exception {
        SubSourceOutlet<T> up = feed.start();
        Sink<T, ?> sink = Checks.created(factory.create(), "Sink");
        subFusingMaterializer()
            .materialize(Source.fromGraph(up.source()).to(sink), inheritedAttributes);
      }

      @Override
      protected void enterBackoff() {
        feed.pause();
        feed.release();
      }
    };
  }
}
