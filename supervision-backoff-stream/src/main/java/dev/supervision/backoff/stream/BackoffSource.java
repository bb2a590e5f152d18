package dev.supervision.backoff.stream;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.internal.SourceStage;
import dev.supervision.backoff.stream.internal.StreamSpec;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A source that restarts the source it wraps with the backoff of a {@link BackoffPolicy}: Pekko's
 * {@code RestartSource} with this library's policy. Migrating is one word and one argument:
 *
 * <pre>{@code
 * RestartSource.withBackoff(RestartSettings.create(min, max, 0.2), () -> source)   // Pekko
 * BackoffSource.withBackoff(BackoffPolicy.exponential(min, max), () -> source)     // this library
 * }</pre>
 *
 * <p>The wrapped source is made by {@code factory} when the returned source is materialized and
 * again at each restart. Elements the inner source emits go downstream as they come; while it
 * waits for a restart, downstream demand waits too. The outer source ends:
 *
 * <ul>
 *   <li>when downstream cancels: the running inner source is cancelled, a pending restart is
 *       dropped ({@link dev.supervision.backoff.BackoffEvent.StoppedDuringBackoff});
 *   <li>with the inner source's failure, when the policy gives up: a permanent failure ({@link
 *       BackoffPolicy#withStopOn(Class[])}, {@link BackoffPolicy#withRestartOn(Class[])}) or the
 *       failure after {@link BackoffPolicy#getMaxRestarts()} restarts ({@link
 *       dev.supervision.backoff.BackoffEvent.GaveUp});
 *   <li>completed, when the inner source completes and it is not to be restarted: always with
 *       {@code onFailuresWithBackoff}, after {@code maxRestarts} restarts with {@code withBackoff}.
 * </ul>
 *
 * <p>Every setting of the policy that concerns restarts applies as it does to an actor (delays
 * from the same schedule, {@link dev.supervision.backoff.RetryAfter} hints, {@code resetAfter} as a
 * timer of its own started at each restart, the budget, listeners, events, log settings); the stash
 * settings and {@code stopChildren} do not apply to streams. Events name the stream through their
 * {@code actor()}, the stage's actor; {@link BackoffStreams#streamName} reads the name back.
 * Timers run on the actor system's scheduler, so {@code ManualTime} drives them.
 */
public final class BackoffSource {

  /** The name of a source made without one. */
  public static final String DEFAULT_NAME = "backoff-source";

  private BackoffSource() {}

  /**
   * A source that restarts {@code factory}'s source after each failure and each completion.
   *
   * @param policy the backoff policy
   * @param factory makes the inner source, at materialization and at each restart
   * @param <T> the element type
   * @return the restartable source, named {@value #DEFAULT_NAME}
   * @throws NullPointerException if an argument is {@code null}, naming it
   */
  public static <T> Source<T, NotUsed> withBackoff(
      BackoffPolicy policy, Creator<Source<T, ?>> factory) {
    return withBackoff(DEFAULT_NAME, policy, factory);
  }

  /**
   * As {@link #withBackoff(BackoffPolicy, Creator)}, for a stream with a name of its own, which its
   * events and log lines carry.
   *
   * @param name the stream's name, for events and log lines; not blank
   * @param policy the backoff policy
   * @param factory makes the inner source, at materialization and at each restart
   * @param <T> the element type
   * @return the restartable source
   * @throws NullPointerException if an argument is {@code null}, naming it
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static <T> Source<T, NotUsed> withBackoff(
      String name, BackoffPolicy policy, Creator<Source<T, ?>> factory) {
    return Source.fromGraph(
        new SourceStage<>(StreamSpec.of("source", name, policy, factory, false), factory));
  }

  /**
   * A source that restarts {@code factory}'s source after each failure only; when the inner source
   * completes, the outer one completes.
   *
   * @param policy the backoff policy
   * @param factory makes the inner source, at materialization and at each restart
   * @param <T> the element type
   * @return the restartable source, named {@value #DEFAULT_NAME}
   * @throws NullPointerException if an argument is {@code null}, naming it
   */
  public static <T> Source<T, NotUsed> onFailuresWithBackoff(
      BackoffPolicy policy, Creator<Source<T, ?>> factory) {
    return onFailuresWithBackoff(DEFAULT_NAME, policy, factory);
  }

  /**
   * As {@link #onFailuresWithBackoff(BackoffPolicy, Creator)}, for a stream with a name of its own.
   *
   * @param name the stream's name, for events and log lines; not blank
   * @param policy the backoff policy
   * @param factory makes the inner source, at materialization and at each restart
   * @param <T> the element type
   * @return the restartable source
   * @throws NullPointerException if an argument is {@code null}, naming it
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static <T> Source<T, NotUsed> onFailuresWithBackoff(
      String name, BackoffPolicy policy, Creator<Source<T, ?>> factory) {
    return Source.fromGraph(
        new SourceStage<>(StreamSpec.of("source", name, policy, factory, true), factory));
  }
}
