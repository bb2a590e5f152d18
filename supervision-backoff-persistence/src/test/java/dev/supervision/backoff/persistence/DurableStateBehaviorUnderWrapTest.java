package dev.supervision.backoff.persistence;

import static dev.supervision.backoff.persistence.Kits.assertCausedBy;
import static dev.supervision.backoff.persistence.Kits.expectRestartScheduled;
import static dev.supervision.backoff.persistence.Kits.freshId;
import static dev.supervision.backoff.persistence.Kits.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code DurableStateBehavior} wrapped with {@code BackoffSupervisor.wrap}: a failed write or a
 * failed read of its store restarts it with the policy, and the restarted entity recovers its
 * state from the store.
 */
final class DurableStateBehaviorUnderWrapTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create(Kits.config());
  @RegisterExtension static final SpawnedActors spawned = new SpawnedActors(kit);
  static FlakyStateStore store;

  @BeforeAll
  static void start() {
    store = DurableStateStoreRegistry.get(kit.system()).durableStateStoreFor("flaky-state-store");
  }

  /** One entity under test with its probes. */
  static final class Entity {
    final String id = freshId("register");
    final TestProbe<BackoffEvent> events = kit.createTestProbe();
    final TestProbe<String> recoveries = kit.createTestProbe();
    final TestProbe<String> replies = kit.createTestProbe();
    ActorRef<Register.Command> ref;

    Entity spawn(BackoffPolicy policy) {
      ref =
          spawned.track(
              kit.spawn(BackoffSupervisor.wrap(new Register(id, recoveries.ref()), policy)));
      return this;
    }

    Entity spawn() {
      return spawn(policy(events));
    }

    void append(String entry, String expectedState) {
      ref.tell(new Register.Append(entry, replies.ref()));
      replies.expectMessage(expectedState);
    }

    void restartsAndRecovers(BackoffEvent.RestartScheduled scheduled, String state) {
      Kits.passDelay(kit.time(), scheduled);
      assertEquals(
          scheduled.attempt(), events.expectMessageClass(BackoffEvent.Restarted.class).attempt());
      recoveries.expectMessage("recovered:" + state);
    }
  }

  @Test
  void aFailedStoreWriteRestartsTheEntityWhichRecoversItsState() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");

    IOException down = new IOException("state store down");
    store.failNextWrites(e.id, 1, down);
    e.ref.tell(new Register.Append("b", e.replies.ref()));

    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down);
    e.replies.expectNoMessage(Duration.ofMillis(100));
    e.restartsAndRecovers(scheduled, "a");
    e.append("c", "a,c");
  }

  @Test
  void underAUsersInnerStopAStoreFailureIsStillRestarted() {
    Entity e = new Entity();
    // the user's own stop around the entity: the store failure passes through it to wrap
    e.ref =
        spawned.track(
            kit.spawn(
                BackoffSupervisor.wrap(
                    org.apache.pekko.actor.typed.javadsl.Behaviors.supervise(
                            new Register(e.id, e.recoveries.ref()))
                        .onFailure(
                            org.apache.pekko.actor.typed.SupervisorStrategy.stop()
                                .withLoggingEnabled(false)),
                    policy(e.events))));
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");
    IOException down = new IOException("state store down");
    store.failNextWrites(e.id, 1, down);
    e.ref.tell(new Register.Append("b", e.replies.ref()));
    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down);
    e.restartsAndRecovers(scheduled, "a");
    e.append("c", "a,c");
  }

  @Test
  void aFailedStoreReadDuringRecoveryRestartsTheEntity() {
    Entity first = new Entity().spawn();
    first.recoveries.expectMessage("recovered:");
    first.append("a", "a");
    kit.testKit().stop(first.ref);

    Entity e = new Entity();
    IOException down = new IOException("state store unreachable");
    store.failNextReads(first.id, 1, down);
    e.ref =
        spawned.track(
            kit.spawn(
                BackoffSupervisor.wrap(
                    new Register(first.id, e.recoveries.ref()), policy(e.events))));

    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down);
    e.recoveries.expectNoMessage(Duration.ofMillis(100));
    e.restartsAndRecovers(scheduled, "a");
    e.append("b", "a,b");
  }

  @Test
  void repeatedStoreFailuresFollowTheFullJitterScheduleUnderTheCap() {
    Entity e = new Entity();
    store.failNextReads(e.id, 4, new IOException("state store unreachable"));
    e.spawn();

    long bound = Kits.MIN.toNanos();
    for (int attempt = 1; attempt <= 4; attempt++) {
      BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, attempt);
      assertTrue(
          scheduled.delay().toNanos() <= Math.min(bound, Kits.MAX.toNanos()),
          "attempt " + attempt + ": " + scheduled.delay() + " above its bound or the cap");
      bound *= 2;
      Kits.passDelay(kit.time(), scheduled);
      e.events.expectMessageClass(BackoffEvent.Restarted.class);
    }
    e.recoveries.expectMessage("recovered:");
  }

  @Test
  void theRestartCountResetsAfterAHealthyPeriod() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    store.failNextWrites(e.id, 1, new IOException("state store down"));
    e.ref.tell(new Register.Append("a", e.replies.ref()));
    e.restartsAndRecovers(expectRestartScheduled(e.events, 1), "");

    kit.time().timePasses(Kits.RESET);
    assertEquals(1, e.events.expectMessageClass(BackoffEvent.BackoffReset.class).attempts());

    store.failNextWrites(e.id, 1, new IOException("state store down"));
    e.ref.tell(new Register.Append("b", e.replies.ref()));
    expectRestartScheduled(e.events, 1); // the first again, not the second
  }

  @Test
  void aStoreFailureWaitsForAPermitOfTheRestartBudget() {
    Entity e = new Entity();
    e.spawn(
        policy(e.events)
            .withBudget(RestartBudget.of(freshId("state-store"), 10, Duration.ofSeconds(1))));
    e.recoveries.expectMessage("recovered:");
    store.failNextWrites(e.id, 1, new IOException("state store down"));
    e.ref.tell(new Register.Append("a", e.replies.ref()));

    Kits.passDelay(kit.time(), expectRestartScheduled(e.events, 1));
    e.events.expectMessageClass(BackoffEvent.WaitingForPermit.class);
    e.events.expectMessageClass(BackoffEvent.PermitGranted.class);
    e.events.expectMessageClass(BackoffEvent.Restarted.class);
    e.recoveries.expectMessage("recovered:");
  }

  @Test
  void aStoreFailureWhoseCauseMatchesStopOnStopsTheEntity() {
    Entity e = new Entity();
    e.spawn(policy(e.events).withStopOn(IllegalStateException.class));
    e.recoveries.expectMessage("recovered:");
    TestProbe<Object> watcher = kit.createTestProbe();

    IllegalStateException corrupt = new IllegalStateException("state table is corrupt");
    store.failNextWrites(e.id, 1, corrupt);
    e.ref.tell(new Register.Append("a", e.replies.ref()));

    BackoffEvent.GaveUp gaveUp = e.events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    assertCausedBy(gaveUp.cause(), corrupt);
    watcher.expectTerminated(e.ref);
  }

  @Test
  void commandsSentDuringTheBackoffAreHandledInOrderAfterRecovery() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");
    store.failNextWrites(e.id, 1, new IOException("state store down"));
    e.ref.tell(new Register.Append("lost", e.replies.ref()));
    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);

    e.ref.tell(new Register.Append("b", e.replies.ref()));
    e.ref.tell(new Register.Get(e.replies.ref()));
    e.ref.tell(new Register.Append("c", e.replies.ref()));
    e.replies.expectNoMessage(Duration.ofMillis(100));

    e.restartsAndRecovers(scheduled, "a");
    assertEquals(List.of("a,b", "a,b", "a,b,c"), e.replies.receiveSeveralMessages(3));
  }

  @Test
  void pekkosOwnSuperviseAroundTheEntityDoesNotRestartItOnAStoreFailure() {
    Entity e = new Entity();
    Behavior<Register.Command> pekko =
        Behaviors.supervise(new Register(e.id, e.recoveries.ref()))
            .onFailure(SupervisorStrategy.restartWithBackoff(Kits.MIN, Kits.MAX, 0.2));
    e.ref = spawned.track(kit.spawn(pekko));
    e.recoveries.expectMessage("recovered:");
    TestProbe<Object> watcher = kit.createTestProbe();

    store.failNextWrites(e.id, 1, new IOException("state store down"));
    e.ref.tell(new Register.Append("a", e.replies.ref()));
    watcher.expectTerminated(e.ref);
  }
}
