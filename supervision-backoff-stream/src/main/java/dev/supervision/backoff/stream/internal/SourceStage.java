package dev.supervision.backoff.stream.internal;

import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * A source that runs the factory's source and starts a new one after each failure (and, unless
 * only failures restart it, each completion). Downstream demand is passed on to the running inner
 * source; during a backoff it waits.
 *
 * @param <T> the element type
 */
public final class SourceStage<T> extends GraphStage<SourceShape<T>> {

  private final StreamSpec spec;
  private final Creator<Source<T, ?>> factory;
  private final Outlet<T> out = Outlet.create("BackoffSource.out");
  private final SourceShape<T> shape = SourceShape.of(out);

  /**
   * A new stage.
   *
   * @param spec the stage's settings
   * @param factory makes each inner source
   */
  public SourceStage(StreamSpec spec, Creator<Source<T, ?>> factory) {
    this.spec = spec;
    this.factory = factory;
  }

  @Override
  public SourceShape<T> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name(spec.name());
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new RestartLogic(shape, spec, inheritedAttributes) {

      private SubSinkInlet<T> sinkIn;

      private final AbstractOutHandler backoffOut =
          new AbstractOutHandler() {
            @Override
            public void onPull() {} // served by the next inner source

            @Override
            public void onDownstreamFinish(Throwable cause) {
              finishing = true;
              cancelStage(cause);
            }
          };

      {
        setHandler(out, backoffOut);
      }

      @Override
      protected void startInner() throws Exception {
        SubSinkInlet<T> port = new SubSinkInlet<>("BackoffSource.subIn");
        sinkIn = port;
        port.setHandler(
            new AbstractInHandler() {
              @Override
              public void onPush() {
                push(out, port.grab());
              }

              @Override
              public void onUpstreamFinish() {
                if (sinkIn == port) {
                  innerCompleted(() -> complete(out));
                }
              }

              @Override
              public void onUpstreamFailure(Throwable ex) {
                if (sinkIn == port) {
                  innerFailed(ex);
                }
              }
            });
        setHandler(
            out,
            new AbstractOutHandler() {
              @Override
              public void onPull() {
                port.pull();
              }

              @Override
              public void onDownstreamFinish(Throwable cause) {
                finishing = true;
                port.cancel(cause);
                cancelStage(cause);
              }
            });
        Source<T, ?> source = Checks.created(factory.create(), "Source");
        subFusingMaterializer().materialize(source.to(port.sink()), inheritedAttributes);
        if (isAvailable(out)) {
          port.pull();
        }
      }

      @Override
      protected void enterBackoff() {
        setHandler(out, backoffOut);
        if (sinkIn != null) {
          if (!sinkIn.isClosed()) {
            sinkIn.cancel();
          }
          sinkIn = null;
        }
      }
    };
  }

  @Override
  public String toString() {
    return "BackoffSource(" + spec.name() + ")";
  }
}
