package dev.supervision.backoff.stream.internal;

import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Shape;
import org.apache.pekko.stream.stage.GraphStage;

/**
 * What the source, flow and sink stages share: their settings, the factory of their inner stream,
 * their shape, the stream's name as their attribute and in their {@code toString}.
 *
 * @param <S> the stage's shape
 * @param <F> the inner stream's type
 */
public abstract class RestartStage<S extends Shape, F> extends GraphStage<S> {

  /** The stage's settings. */
  protected final StreamSpec spec;

  /** Makes each inner stream. */
  protected final Creator<F> factory;

  private final S shape;
  private final String kind;

  /**
   * A new stage.
   *
   * @param spec the stage's settings
   * @param factory makes each inner stream
   * @param shape the stage's shape
   * @param kind the stage's class as users know it, {@code BackoffSource} say
   */
  protected RestartStage(StreamSpec spec, Creator<F> factory, S shape, String kind) {
    this.spec = spec;
    this.factory = factory;
    this.shape = shape;
    this.kind = kind;
  }

  @Override
  public S shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name(spec.name());
  }

  @Override
  public String toString() {
    return kind + "(" + spec.name() + ")";
  }
}
