package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * What sharding's passivation does to an entity in backoff (one node, real time, idle passivation
 * after 1 s, a 3 s backoff): without a stop message the entity is stopped at once; with one, the
 * stop message waits in the supervisor's stash and is handled after the restart.
 */
final class ShardedEntityPassivationTest {

  static final ActorTestKit testKit =
      TestNodes.oneNodeCluster(
          "passivation",
          "pekko.cluster.sharding.passivation.default-idle-strategy.idle-entity.timeout = 1s");

  @AfterAll
  static void shutdown() {
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  /** The entity's protocol. */
  enum Command {
    PING,
    FAIL,
    STOP
  }

  static Behavior<Command> entity(ActorRef<String> lifecycle) {
    return Behaviors.setup(
        ctx -> {
          lifecycle.tell("started");
          return Behaviors.receive(Command.class)
              .onMessageEquals(
                  Command.FAIL,
                  () -> {
                    throw new IllegalStateException("database unavailable");
                  })
              .onMessageEquals(Command.PING, Behaviors::same)
              .onMessageEquals(
                  Command.STOP,
                  () -> {
                    lifecycle.tell("got STOP");
                    return Behaviors.stopped();
                  })
              .onSignal(
                  PostStop.class,
                  s -> {
                    lifecycle.tell("stopped");
                    return Behaviors.same();
                  })
              .build();
        });
  }

  static BackoffPolicy policy(TestProbe<BackoffEvent> events) {
    return BackoffPolicy.exponential(Duration.ofSeconds(3), Duration.ofSeconds(3))
        .withJitter(Jitter.none())
        .withLoggingEnabled(false)
        .withListener(events.ref()::tell);
  }

  @Test
  void withoutAStopMessage_passivationStopsAnEntityInBackoffAtOnce() {
    TestProbe<BackoffEvent> events = testKit.createTestProbe();
    TestProbe<String> lifecycle = testKit.createTestProbe();
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "no-stop-message");
    ClusterSharding.get(testKit.system())
        .init(
            Entity.of(key, ctx -> BackoffSupervisor.wrap(entity(lifecycle.ref()), policy(events))));

    ClusterSharding.get(testKit.system()).entityRefFor(key, "a").tell(Command.FAIL);
    lifecycle.expectMessage(Duration.ofSeconds(20), "started"); // the node joins, the entity starts
    assertInstanceOf(
        BackoffEvent.RestartScheduled.class, events.receiveMessage(Duration.ofSeconds(5)));
    // idle for 1 s: the shard stops the entity before its restart is due (3 s)
    assertInstanceOf(
        BackoffEvent.StoppedDuringBackoff.class, events.receiveMessage(Duration.ofMillis(2500)));
    lifecycle.expectNoMessage(
        Duration.ofMillis(200)); // no PostStop: the failed behavior got PreRestart
    // the entity is gone for good: the next message starts a new one (a zombie would never get it)
    ClusterSharding.get(testKit.system()).entityRefFor(key, "a").tell(Command.PING);
    lifecycle.expectMessage(Duration.ofSeconds(5), "started");
    events.expectNoMessage(Duration.ofMillis(200)); // a fresh start, not a restart
  }

  @Test
  void withAStopMessage_passivationWaitsForTheRestart() {
    TestProbe<BackoffEvent> events = testKit.createTestProbe();
    TestProbe<String> lifecycle = testKit.createTestProbe();
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "with-stop-message");
    ClusterSharding.get(testKit.system())
        .init(
            Entity.of(key, ctx -> BackoffSupervisor.wrap(entity(lifecycle.ref()), policy(events)))
                .withStopMessage(Command.STOP));

    ClusterSharding.get(testKit.system()).entityRefFor(key, "b").tell(Command.FAIL);
    lifecycle.expectMessage(Duration.ofSeconds(20), "started");
    assertInstanceOf(
        BackoffEvent.RestartScheduled.class, events.receiveMessage(Duration.ofSeconds(5)));
    // the shard's STOP arrives after about 1 s and is stashed; the restart comes at 3 s, then STOP
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage(Duration.ofSeconds(5)));
    assertEquals("started", lifecycle.receiveMessage(Duration.ofSeconds(1)));
    assertEquals("got STOP", lifecycle.receiveMessage(Duration.ofSeconds(1)));
    // the entity stopped: the next message starts a new one
    ClusterSharding.get(testKit.system()).entityRefFor(key, "b").tell(Command.PING);
    lifecycle.fishForMessage(
        Duration.ofSeconds(5),
        m ->
            "started".equals(m)
                ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
  }
}
