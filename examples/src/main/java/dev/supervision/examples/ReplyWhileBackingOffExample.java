package dev.supervision.examples;

import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A service that answers its callers while it backs off, instead of keeping them waiting on its
 * stash: while the supervisor waits to restart it, a lookup is answered at once with {@link
 * Unavailable} and the time until the restart (the {@code Retry-After} a recovering actor gives its
 * callers), while a {@link Store} command, which must not be lost, is stashed and delivered after
 * the restart.
 */
public final class ReplyWhileBackingOffExample {

  private ReplyWhileBackingOffExample() {}

  /** The service's messages. */
  public sealed interface Command {}

  /**
   * Looks a key up; the answer goes to {@code replyTo}.
   *
   * @param key the key
   * @param replyTo who gets the answer
   */
  public record Lookup(String key, ActorRef<Reply> replyTo) implements Command {}

  /**
   * Stores a value; kept during a backoff and written after the restart.
   *
   * @param key the key
   * @param replyTo who gets the confirmation
   */
  public record Store(String key, ActorRef<Reply> replyTo) implements Command {}

  /** The service's answers. */
  public sealed interface Reply {}

  /**
   * The database's answer.
   *
   * @param result what the database returned
   */
  public record Result(String result) implements Reply {}

  /**
   * The service is recovering: come back after {@code retryAfter}.
   *
   * @param retryAfter how long the caller should wait before it asks again
   */
  public record Unavailable(Duration retryAfter) implements Reply {}

  // #reply-while-backing-off
  /** Answers lookups during a backoff; stashes everything else. */
  static final BackoffHandler ANSWER_LOOKUPS =
      (message, untilRestart) -> {
        if (message instanceof Lookup lookup) {
          lookup.replyTo().tell(new Unavailable(untilRestart));
          return true; // answered: not stashed
        }
        return false; // a Store waits for the restart
      };

  /**
   * The policy: restarts after 200 ms to 5 s, answering lookups while it waits.
   *
   * @return the policy
   */
  public static BackoffPolicy policy() {
    return BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(5))
        .withHandlerWhileBackingOff(ANSWER_LOOKUPS);
  }

  // #reply-while-backing-off

  /**
   * The supervised service; it connects in {@code setup}, so a restart reconnects.
   *
   * @param db the database
   * @param policy the policy, usually {@link #policy()}
   * @return the behavior to spawn
   */
  public static Behavior<Command> create(FlakyDatabase db, BackoffPolicy policy) {
    Behavior<Command> service =
        Behaviors.setup(
            ctx -> {
              db.connect();
              return Behaviors.receive(Command.class)
                  .onMessage(
                      Lookup.class,
                      l -> {
                        l.replyTo().tell(new Result(db.query(l.key())));
                        return Behaviors.same();
                      })
                  .onMessage(
                      Store.class,
                      s -> {
                        s.replyTo().tell(new Result(db.query("store " + s.key())));
                        return Behaviors.same();
                      })
                  .build();
            });
    return BackoffSupervisor.wrap(service, policy);
  }
}
