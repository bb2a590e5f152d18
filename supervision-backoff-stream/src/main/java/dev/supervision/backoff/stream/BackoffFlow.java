package dev.supervision.backoff.stream;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.internal.FlowStage;
import dev.supervision.backoff.stream.internal.StreamSpec;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.javadsl.Flow;

/**
 * A flow that restarts the flow it wraps with the backoff of a {@link BackoffPolicy}: Pekko's
 * {@code RestartFlow} with this library's policy.
 *
 * <p>The wrapped flow is made by {@code factory} when the returned flow is materialized and again
 * at each restart. With {@code withBackoff} it restarts when it fails, when its output completes
 * and when it cancels its input; with {@code onFailuresWithBackoff} only when it fails (a failure
 * that cancels its input counts as a failure: no delay is added to tell the two apart, as Pekko
 * does). The element the failed inner flow held is lost; an element that arrives from upstream
 * during the backoff goes to the next inner flow. When upstream completes or fails, the inner
 * flow gets the completion or failure and the outer flow ends when the inner one does; when
 * downstream cancels, the inner flow is cancelled. During a backoff either ends the outer flow at
 * once. When the policy gives up (a permanent failure, or the failure after {@code maxRestarts}
 * restarts), the outer flow fails with that failure. {@link BackoffSource} lists the settings that
 * apply.
 */
public final class BackoffFlow {

  /** The name of a flow made without one. */
  public static final String DEFAULT_NAME = "backoff-flow";

  private BackoffFlow() {}

  /**
   * A flow that restarts {@code factory}'s flow after each failure, completion and cancellation.
   *
   * @param policy the backoff policy
   * @param factory makes the inner flow, at materialization and at each restart
   * @param <I> the input type
   * @param <O> the output type
   * @return the restartable flow, named {@value #DEFAULT_NAME}
   * @throws NullPointerException if an argument is {@code null}, naming it
   */
  public static <I, O> Flow<I, O, NotUsed> withBackoff(
      BackoffPolicy policy, Creator<Flow<I, O, ?>> factory) {
    return withBackoff(DEFAULT_NAME, policy, factory);
  }

  /**
   * As {@link #withBackoff(BackoffPolicy, Creator)}, for a stream with a name of its own.
   *
   * @param name the stream's name, for events and log lines; not blank
   * @param policy the backoff policy
   * @param factory makes the inner flow, at materialization and at each restart
   * @param <I> the input type
   * @param <O> the output type
   * @return the restartable flow
   * @throws NullPointerException if an argument is {@code null}, naming it
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static <I, O> Flow<I, O, NotUsed> withBackoff(
      String name, BackoffPolicy policy, Creator<Flow<I, O, ?>> factory) {
    return Flow.fromGraph(
        new FlowStage<>(StreamSpec.of("flow", name, policy, factory, false), factory));
  }

  /**
   * A flow that restarts {@code factory}'s flow after each failure only; a completion or a plain
   * cancellation of the inner flow ends the outer one the same way.
   *
   * @param policy the backoff policy
   * @param factory makes the inner flow, at materialization and at each restart
   * @param <I> the input type
   * @param <O> the output type
   * @return the restartable flow, named {@value #DEFAULT_NAME}
   * @throws NullPointerException if an argument is {@code null}, naming it
   */
  public static <I, O> Flow<I, O, NotUsed> onFailuresWithBackoff(
      BackoffPolicy policy, Creator<Flow<I, O, ?>> factory) {
    return onFailuresWithBackoff(DEFAULT_NAME, policy, factory);
  }

  /**
   * As {@link #onFailuresWithBackoff(BackoffPolicy, Creator)}, for a stream with a name of its own.
   *
   * @param name the stream's name, for events and log lines; not blank
   * @param policy the backoff policy
   * @param factory makes the inner flow, at materialization and at each restart
   * @param <I> the input type
   * @param <O> the output type
   * @return the restartable flow
   * @throws NullPointerException if an argument is {@code null}, naming it
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static <I, O> Flow<I, O, NotUsed> onFailuresWithBackoff(
      String name, BackoffPolicy policy, Creator<Flow<I, O, ?>> factory) {
    return Flow.fromGraph(
        new FlowStage<>(StreamSpec.of("flow", name, policy, factory, true), factory));
  }
}
