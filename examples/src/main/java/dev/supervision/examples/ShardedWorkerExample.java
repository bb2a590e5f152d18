package dev.supervision.examples;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * Workers as sharded entities: each entity is wrapped in a backoff supervisor inside the entity
 * factory, and all of them, on every node, share one cluster-wide restart budget.
 */
public final class ShardedWorkerExample {

  private ShardedWorkerExample() {}

  /** The entity type of the sharded workers. */
  public static final EntityTypeKey<Worker.Query> WORKER =
      EntityTypeKey.create(Worker.Query.class, "Worker");

  // #sharded-entity
  /** Starts the sharded workers on this node (call it on every node). */
  public static ActorRef<ShardingEnvelope<Worker.Query>> initSharding(
      ActorSystem<?> system, FlakyDatabase db) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10))
            .withStashCapacity(
                100) // messages to an entity in backoff wait here; overflow is Dropped
            .withBudget(
                RestartBudget.of("orders-db", 50, Duration.ofSeconds(1)) // 50 restarts/s ...
                    .clusterWide()); // ... summed over all nodes (needs
    // supervision-backoff-cluster)
    return ClusterSharding.get(system)
        .init(Entity.of(WORKER, ctx -> BackoffSupervisor.wrap(Worker.create(db), policy)));
  }
  // #sharded-entity
}
