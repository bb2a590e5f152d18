package dev.supervision.backoff.stream;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.stream.internal.StreamNames;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Tells which stream a {@link BackoffEvent} is about. A restartable stream reports the same events
 * as a supervised actor; their {@link BackoffEvent#actor() actor()} is the stage's actor (a
 * Pekko stage actor, one per materialization), whose name carries the stream's name:
 *
 * <pre>{@code
 * policy.withListener(event ->
 *     BackoffStreams.streamName(event).ifPresent(name -> log.info("{}: {}", name, event)));
 * }</pre>
 *
 * <p>Two materializations of one stream share its name but not their actor, so a test or a
 * listener can follow one of them with {@code event.actor()}.
 */
public final class BackoffStreams {

  private BackoffStreams() {}

  /**
   * The name of the stream an event is about.
   *
   * @param event an event of a listener or of the event stream
   * @return the name given to {@code withBackoff} (or the stage's default name), or empty if the
   *     event is about an actor, not a stream
   * @throws NullPointerException if {@code event} is {@code null}
   */
  public static Optional<String> streamName(BackoffEvent event) {
    return streamName(Objects.requireNonNull(event, "event must not be null").actor());
  }

  /**
   * The name of the stream whose stage actor {@code actor} is.
   *
   * @param actor the {@code actor()} of an event
   * @return the stream's name, or empty if {@code actor} is not the actor of a restartable stream
   * @throws NullPointerException if {@code actor} is {@code null}
   */
  public static Optional<String> streamName(ActorRef<?> actor) {
    return StreamNames.fromActorName(
        Objects.requireNonNull(actor, "actor must not be null").path().name());
  }

  /**
   * Whether an event is about a restartable stream rather than an actor.
   *
   * @param event the event
   * @return {@code true} if it came from a stage of this module
   * @throws NullPointerException if {@code event} is {@code null}
   */
  public static boolean isStreamEvent(BackoffEvent event) {
    return streamName(event).isPresent();
  }
}
