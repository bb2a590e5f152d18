package dev.supervision.examples;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** A worker that connects to the database when it starts and answers queries through it. */
public final class Worker {

  private Worker() {}

  /**
   * A query to run; the result goes to {@code replyTo}.
   *
   * @param sql the query
   * @param replyTo who gets the result
   */
  public record Query(String sql, ActorRef<String> replyTo) {}

  /**
   * The worker's behavior. Connecting in {@code setup} means a restart reconnects; while the
   * database is down both the connect and the query throw, and the supervisor restarts the worker.
   *
   * @param db the shared database
   * @return the behavior, to be wrapped by {@code BackoffSupervisor.wrap}
   */
  public static Behavior<Query> create(FlakyDatabase db) {
    return Behaviors.setup(
        ctx -> {
          db.connect();
          return Behaviors.receive(Query.class)
              .onMessage(
                  Query.class,
                  q -> {
                    q.replyTo().tell(db.query(q.sql()));
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
