package dev.supervision.backoff.stream.internal;

import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.SinkShape;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * A sink that feeds the factory's sink and starts a new one after each cancellation, failed or
 * not. An element that the outer upstream pushes during a backoff waits in the port for the next
 * inner sink.
 *
 * @param <T> the element type
 */
public final class SinkStage<T> extends GraphStage<SinkShape<T>> {

  private final StreamSpec spec;
  private final Creator<Sink<T, ?>> factory;
  private final Inlet<T> in = Inlet.create("BackoffSink.in");
  private final SinkShape<T> shape = SinkShape.of(in);

  /**
   * A new stage.
   *
   * @param spec the stage's settings
   * @param factory makes each inner sink
   */
  public SinkStage(StreamSpec spec, Creator<Sink<T, ?>> factory) {
    this.spec = spec;
    this.factory = factory;
  }

  @Override
  public SinkShape<T> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name(spec.name());
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new RestartLogic(shape, spec, inheritedAttributes) {

      private SubSourceOutlet<T> sourceOut;

      private final AbstractInHandler backoffIn =
          new AbstractInHandler() {
            @Override
            public void onPush() {} // the element waits in the port for the next inner sink

            @Override
            public void onUpstreamFinish() {
              finishing = true;
              completeStage();
            }

            @Override
            public void onUpstreamFailure(Throwable ex) {
              finishing = true;
              failStage(ex);
            }
          };

      {
        setHandler(in, backoffIn);
      }

      @Override
      protected void startInner() throws Exception {
        SubSourceOutlet<T> up = new SubSourceOutlet<>("BackoffSink.subOut");
        sourceOut = up;
        up.setHandler(
            new AbstractOutHandler() {
              @Override
              public void onPull() {
                if (isAvailable(in)) {
                  up.push(grab(in));
                } else if (!hasBeenPulled(in) && !isClosed(in)) {
                  pull(in);
                }
              }

              @Override
              public void onDownstreamFinish(Throwable cause) {
                if (sourceOut == up) {
                  innerCancelled(cause, () -> cancel(in, cause));
                }
              }
            });
        setHandler(
            in,
            new AbstractInHandler() {
              @Override
              public void onPush() {
                if (up.isAvailable()) {
                  up.push(grab(in));
                }
              }

              @Override
              public void onUpstreamFinish() {
                finishing = true;
                if (!up.isClosed()) {
                  up.complete();
                }
              }

              @Override
              public void onUpstreamFailure(Throwable ex) {
                finishing = true;
                if (!up.isClosed()) {
                  up.fail(ex);
                }
              }
            });
        Sink<T, ?> sink = Checks.created(factory.create(), "Sink");
        subFusingMaterializer()
            .materialize(Source.fromGraph(up.source()).to(sink), inheritedAttributes);
      }

      @Override
      protected void enterBackoff() {
        setHandler(in, backoffIn);
        if (sourceOut != null) {
          if (!sourceOut.isClosed()) {
            sourceOut.complete();
          }
          sourceOut = null;
        }
      }
    };
  }

  @Override
  public String toString() {
    return "BackoffSink(" + spec.name() + ")";
  }
}
