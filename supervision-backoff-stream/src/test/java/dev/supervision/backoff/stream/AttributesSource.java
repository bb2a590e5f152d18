package dev.supervision.backoff.stream;

import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.GraphStageWithMaterializedValue;
import scala.Tuple2;

/** A source whose materialized value is the attributes it was materialized with; it completes. */
final class AttributesSource
    extends GraphStageWithMaterializedValue<SourceShape<String>, Attributes> {

  private final Outlet<String> out = Outlet.create("AttributesSource.out");
  private final SourceShape<String> shape = SourceShape.of(out);

  @Override
  public SourceShape<String> shape() {
    return shape;
  }

  @Override
  public Tuple2<GraphStageLogic, Attributes> createLogicAndMaterializedValue(
      Attributes inheritedAttributes) {
    GraphStageLogic logic =
        new GraphStageLogic(shape) {
          {
            setHandler(
                out,
                new AbstractOutHandler() {
                  @Override
                  public void onPull() {
                    completeStage();
                  }
                });
          }
        };
    return Tuple2.apply(logic, inheritedAttributes);
  }
}
