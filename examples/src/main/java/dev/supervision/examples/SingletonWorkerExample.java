package dev.supervision.examples;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/** A cluster singleton wrapped in a backoff supervisor: it restarts in place, on the oldest node. */
public final class SingletonWorkerExample {

  private SingletonWorkerExample() {}

  // #singleton
  /** Starts the singleton manager on this node (call it on every node) and returns a proxy. */
  public static ActorRef<Worker.Query> initSingleton(ActorSystem<?> system, FlakyDatabase db) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10));
    return ClusterSingleton.get(system)
        .init(
            SingletonActor.of(BackoffSupervisor.wrap(Worker.create(db), policy), "report-worker"));
  }
  // #singleton
}
