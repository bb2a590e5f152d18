package dev.supervision.backoff.stream.internal;

import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * A flow that runs the factory's flow between its ports and starts a new one after each failure
 * (and, unless only failures restart it, each completion of its output and each cancellation of
 * its input). An element that the outer upstream pushes during a backoff waits in the port for the
 * next inner flow; the element a failing inner flow held is lost.
 *
 * @param <I> the input type
 * @param <O> the output type
 */
public final class FlowStage<I, O> extends RestartStage<FlowShape<I, O>, Flow<I, O, ?>> {

  private final Inlet<I> in = shape().in();
  private final Outlet<O> out = shape().out();

  /**
   * A new stage.
   *
   * @param spec the stage's settings
   * @param factory makes each inner flow
   */
  public FlowStage(StreamSpec spec, Creator<Flow<I, O, ?>> factory) {
    super(
        spec,
        factory,
        FlowShape.of(Inlet.create("BackoffFlow.in"), Outlet.create("BackoffFlow.out")),
        "BackoffFlow");
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new RestartLogic(shape(), spec, inheritedAttributes) {

      private final Feed<I> feed = new Feed<>(in, "BackoffFlow.subOut");
      private final Drain<O> drain = new Drain<>(out, "BackoffFlow.subIn", false);

      @Override
      protected void startInner() throws Exception {
        SubSourceOutlet<I> up = feed.start();
        SubSinkInlet<O> down = drain.start();
        Flow<I, O, ?> flow = Checks.created(factory.create(), "Flow");
        subFusingMaterializer()
            .materialize(
                Source.fromGraph(up.source()).via(flow).to(down.sink()), inheritedAttributes);
        if (isClosed(in) && !up.isClosed()) {
          up.complete(); // upstream is gone already: the new flow's input is complete
        }
        if (isAvailable(out)) {
          down.pull();
        }
      }

      @Override
      protected void enterBackoff() {
        feed.pause();
        drain.pause();
        feed.release();
        drain.release();
      }
    };
  }
}
