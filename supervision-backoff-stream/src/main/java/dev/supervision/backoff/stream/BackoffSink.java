package dev.supervision.backoff.stream;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.internal.SinkStage;
import dev.supervision.backoff.stream.internal.StreamSpec;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * A sink that restarts the sink it wraps with the backoff of a {@link BackoffPolicy}: Pekko's
 * {@code RestartSink} with this library's policy.
 *
 * <p>The wrapped sink is made by {@code factory} when the returned sink is materialized and again
 * at each restart, which follows each cancellation of the inner sink, failed or not. An element
 * that arrives during the backoff goes to the next inner sink. When upstream completes or fails,
 * the inner sink gets the completion or failure; during a backoff the outer sink then ends at once.
 * When the policy gives up (a permanent failure, or the cancellation after {@code maxRestarts}
 * restarts), the outer sink cancels its upstream with the inner sink's cause. {@link
 * BackoffSource} lists the settings that apply.
 */
public final class BackoffSink {

  /** The name of a sink made without one. */
  public static final String DEFAULT_NAME = "backoff-sink";

  private BackoffSink() {}

  /**
   * A sink that restarts {@code factory}'s sink after each cancellation.
   *
   * @param policy the backoff policy
   * @param factory makes the inner sink, at materialization and at each restart
   * @param <T> the element type
   * @return the restartable sink, named {@value #DEFAULT_NAME}
   * @throws NullPointerException if an argument is {@code null}, naming it
   */
  public static <T> Sink<T, NotUsed> withBackoff(
      BackoffPolicy policy, Creator<Sink<T, ?>> factory) {
    return withBackoff(DEFAULT_NAME, policy, factory);
  }

  /**
   * As {@link #withBackoff(BackoffPolicy, Creator)}, for a stream with a name of its own.
   *
   * @param name the stream's name, for events and log lines; not blank
   * @param policy the backoff policy
   * @param factory makes the inner sink, at materialization and at each restart
   * @param <T> the element type
   * @return the restartable sink
   * @throws NullPointerException if an argument is {@code null}, naming it
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static <T> Sink<T, NotUsed> withBackoff(
      String name, BackoffPolicy policy, Creator<Sink<T, ?>> factory) {
    return Sink.fromGraph(
        new SinkStage<>(StreamSpec.of("sink", name, policy, factory, false), factory));
  }
}
