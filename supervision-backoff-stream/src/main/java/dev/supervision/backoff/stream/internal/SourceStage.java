package dev.supervision.backoff.stream.internal;

import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * A source that runs the factory's source and starts a new one after each failure (and, unless
 * only failures restart it, each completion). Downstream demand is passed on to the running inner
 * source; during a backoff it waits.
 *
 * @param <T> the element type
 */
public final class SourceStage<T> extends RestartStage<SourceShape<T>, Source<T, ?>> {

  private final Outlet<T> out = shape().out();

  /**
   * A new stage.
   *
   * @param spec the stage's settings
   * @param factory makes each inner source
   */
  public SourceStage(StreamSpec spec, Creator<Source<T, ?>> factory) {
    super(spec, factory, SourceShape.of(Outlet.create("BackoffSource.out")), "BackoffSource");
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new RestartLogic(shape(), spec, inheritedAttributes) {

      private final Drain<T> drain = new Drain<>(out, "BackoffSource.subIn", true);

      @Override
      protected void startInner() throws Exception {
        SubSinkInlet<T> port = drain.start();
        Source<T, ?> source = Checks.created(factory.create(), "Source");
        subFusingMaterializer().materialize(source.to(port.sink()), inheritedAttributes);
        if (isAvailable(out)) {
          port.pull();
        }
      }

      @Override
      protected void enterBackoff() {
        drain.pause();
        drain.release();
      }
    };
  }
}
