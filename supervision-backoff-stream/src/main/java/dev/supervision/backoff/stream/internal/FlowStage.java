package dev.supervision.backoff.stream.internal;

import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
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
public final class FlowStage<I, O> extends GraphStage<FlowShape<I, O>> {

  private final StreamSpec spec;
  private final Creator<Flow<I, O, ?>> factory;
  private final Inlet<I> in = Inlet.create("BackoffFlow.in");
  private final Outlet<O> out = Outlet.create("BackoffFlow.out");
  private final FlowShape<I, O> shape = FlowShape.of(in, out);

  /**
   * A new stage.
   *
   * @param spec the stage's settings
   * @param factory makes each inner flow
   */
  public FlowStage(StreamSpec spec, Creator<Flow<I, O, ?>> factory) {
    this.spec = spec;
    this.factory = factory;
  }

  @Override
  public FlowShape<I, O> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name(spec.name());
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new RestartLogic(shape, spec, inheritedAttributes) {

      private SubSourceOutlet<I> sourceOut;
      private SubSinkInlet<O> sinkIn;

      private final AbstractInHandler backoffIn =
          new AbstractInHandler() {
            @Override
            public void onPush() {} // the element waits in the port for the next inner flow

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

      private final AbstractOutHandler backoffOut =
          new AbstractOutHandler() {
            @Override
            public void onPull() {} // served by the next inner flow

            @Override
            public void onDownstreamFinish(Throwable cause) {
              finishing = true;
              cancelStage(cause);
            }
          };

      {
        setHandler(in, backoffIn);
        setHandler(out, backoffOut);
      }

      @Override
      protected void startInner() throws Exception {
        SubSourceOutlet<I> up = new SubSourceOutlet<>("BackoffFlow.subOut");
        SubSinkInlet<O> down = new SubSinkInlet<>("BackoffFlow.subIn");
        sourceOut = up;
        sinkIn = down;
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
        down.setHandler(
            new AbstractInHandler() {
              @Override
              public void onPush() {
                push(out, down.grab());
              }

              @Override
              public void onUpstreamFinish() {
                if (sinkIn == down) {
                  innerCompleted(() -> complete(out));
                }
              }

              @Override
              public void onUpstreamFailure(Throwable ex) {
                if (sinkIn == down) {
                  innerFailed(ex);
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
        setHandler(
            out,
            new AbstractOutHandler() {
              @Override
              public void onPull() {
                down.pull();
              }

              @Override
              public void onDownstreamFinish(Throwable cause) {
                finishing = true;
                down.cancel(cause);
              }
            });
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
        setHandler(in, backoffIn);
        setHandler(out, backoffOut);
        if (sourceOut != null) {
          if (!sourceOut.isClosed()) {
            sourceOut.complete();
          }
          sourceOut = null;
        }
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
    return "BackoffFlow(" + spec.name() + ")";
  }
}
