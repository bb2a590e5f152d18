package dev.supervision.backoff.persistence;

import static dev.supervision.backoff.persistence.Kits.assertCausedBy;
import static dev.supervision.backoff.persistence.Kits.expectRestartScheduled;
import static dev.supervision.backoff.persistence.Kits.freshId;
import static dev.supervision.backoff.persistence.Kits.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.apache.pekko.persistence.testkit.javadsl.SnapshotTestKit;
import org.apache.pekko.persistence.typed.EventRejectedException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An {@code EventSourcedBehavior} wrapped with {@code BackoffSupervisor.wrap}: every failure of its
 * journal or snapshot store restarts it with the policy, and the restarted entity recovers its
 * state. The entity returns a failed behavior on a journal failure instead of throwing; the
 * supervisor treats that as the failure it carries.
 */
final class EventSourcedBehaviorUnderWrapTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create(Kits.config());
  @RegisterExtension static final SpawnedActors spawned = new SpawnedActors(kit);
  static PersistenceTestKit journal;
  static SnapshotTestKit snapshots;

  @BeforeAll
  static void start() {
    journal = PersistenceTestKit.create(kit.system());
    snapshots = SnapshotTestKit.create(kit.system());
  }

  /** One entity under test with its probes. */
  static final class Entity {
    final String id = freshId("ledger");
    final TestProbe<BackoffEvent> events = kit.createTestProbe();
    final TestProbe<String> recoveries = kit.createTestProbe();
    final TestProbe<String> replies = kit.createTestProbe();
    ActorRef<Ledger.Command> ref;

    Entity spawn(BackoffPolicy policy) {
      ref =
          spawned.track(
              kit.spawn(BackoffSupervisor.wrap(new Ledger(id, recoveries.ref()), policy)));
      return this;
    }

    Entity spawn() {
      return spawn(policy(events));
    }

    /** Appends and expects the state after it. */
    void append(String entry, String expectedState) {
      ref.tell(new Ledger.Append(entry, replies.ref()));
      replies.expectMessage(expectedState);
    }

    /** Waits for the restart, moves the clock past it in one step, and expects the recovery. */
    void restartsAndRecovers(BackoffEvent.RestartScheduled scheduled, String state) {
      Kits.passDelay(kit.time(), scheduled);
      BackoffEvent.Restarted restarted = events.expectMessageClass(BackoffEvent.Restarted.class);
      assertEquals(scheduled.attempt(), restarted.attempt());
      expectRecovered(state);
    }

    /** Expects the recovery of {@code state}, skipping reports of failed recoveries before it. */
    void expectRecovered(String state) {
      recoveries.fishForMessage(
          Duration.ofSeconds(3),
          m ->
              m.equals("recovery-failed")
                  ? FishingOutcomes.continueAndIgnore()
                  : m.equals("recovered:" + state)
                      ? FishingOutcomes.complete()
                      : FishingOutcomes.fail("got " + m));
    }

    /**
     * Expects the reports of one failed replay of the journal: Pekko 1.7.0 signals {@code
     * RecoveryFailed} twice for it (once for the failure, once more from the catch around it).
     */
    void expectFailedReplay() {
      recoveries.expectMessage("recovery-failed");
      recoveries.expectMessage("recovery-failed");
    }
  }

  @Test
  void aFailedJournalWriteRestartsTheEntityWhichRecoversItsState() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");

    IOException down = new IOException("journal down");
    journal.failNextPersisted(e.id, down);
    e.ref.tell(new Ledger.Append("b", e.replies.ref()));

    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down);
    e.replies.expectNoMessage(Duration.ofMillis(100)); // b was not persisted, so no reply
    e.restartsAndRecovers(scheduled, "a");
    e.append("c", "a,c");
  }

  @Test
  void underAnInnerStopAJournalFailureIsStillRestartedAndTheStopStillStops() {
    Entity e = new Entity();
    // the user's inner stop: persistence's own failed behavior passes through it to wrap
    e.ref =
        spawned.track(
            kit.spawn(
                BackoffSupervisor.wrap(
                    Behaviors.supervise(new Ledger(e.id, e.recoveries.ref()))
                        .onFailure(
                            IllegalArgumentException.class,
                            SupervisorStrategy.stop().withLoggingEnabled(false)),
                    policy(e.events))));
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");
    IOException down = new IOException("journal down");
    journal.failNextPersisted(e.id, down);
    e.ref.tell(new Ledger.Append("b", e.replies.ref()));
    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down); // restarted: a persistence failure
    e.restartsAndRecovers(scheduled, "a");

    e.ref.tell(new Ledger.Throw(new IllegalArgumentException("fatal for its author")));
    BackoffEvent.GaveUp gaveUp = e.events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.INNER_STOP, gaveUp.reason()); // the user's stop: stops
    e.replies.expectTerminated(e.ref);
  }

  @Test
  void aFailedJournalReadDuringRecoveryRestartsTheEntity() {
    Entity e = new Entity();
    journal.persistForRecovery(e.id, List.of("a", "b"));
    IOException down = new IOException("journal unreachable");
    journal.failNextRead(e.id, down);
    e.spawn();

    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down);
    e.restartsAndRecovers(scheduled, "a,b");
    e.append("c", "a,b,c");
  }

  @Test
  void aFailedSnapshotLoadDuringRecoveryRestartsTheEntity() {
    Entity first = new Entity().spawn();
    first.recoveries.expectMessage("recovered:");
    first.append("a", "a");
    first.append("snap1", "a,snap1"); // followed by a snapshot
    first.append("b", "a,snap1,b");
    kit.testKit().stop(first.ref);

    Entity e = new Entity();
    IOException down = new IOException("snapshot store unreachable");
    snapshots.failNextRead(first.id, down);
    e.ref =
        spawned.track(
            kit.spawn(
                BackoffSupervisor.wrap(
                    new Ledger(first.id, e.recoveries.ref()), policy(e.events))));

    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down);
    e.restartsAndRecovers(scheduled, "a,snap1,b");
  }

  @Test
  void aFailedSnapshotSaveIsNotAFailure_theEntityKeepsRunning() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    snapshots.failNextPersisted(e.id, new IOException("snapshot store full"));
    // the event is in the journal: Pekko logs the failed snapshot (SnapshotFailed) and goes on
    e.append("snap1", "snap1");
    e.append("b", "snap1,b");
    e.events.expectNoMessage(Duration.ofMillis(200));
  }

  @Test
  void aRejectedEventRestartsTheEntityWhichRecoversWithoutTheEvent() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");

    journal.rejectNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("rejected", e.replies.ref()));

    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertInstanceOf(EventRejectedException.class, scheduled.cause());
    e.restartsAndRecovers(scheduled, "a");
    e.append("b", "a,b");
  }

  @Test
  void aRejectedEventStopsTheEntityWhenStopOnNamesEventRejectedException() {
    Entity e = new Entity();
    e.spawn(policy(e.events).withStopOn(EventRejectedException.class));
    e.recoveries.expectMessage("recovered:");
    TestProbe<Object> watcher = kit.createTestProbe();

    journal.rejectNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("rejected", e.replies.ref()));

    BackoffEvent.GaveUp gaveUp = e.events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    assertInstanceOf(EventRejectedException.class, gaveUp.cause());
    watcher.expectTerminated(e.ref);
  }

  @Test
  void aJournalFailureWhoseCauseMatchesStopOnStopsTheEntity() {
    Entity e = new Entity();
    e.spawn(policy(e.events).withStopOn(IllegalStateException.class));
    e.recoveries.expectMessage("recovered:");
    TestProbe<Object> watcher = kit.createTestProbe();

    IllegalStateException corrupt = new IllegalStateException("journal table is corrupt");
    journal.failNextPersisted(e.id, corrupt);
    e.ref.tell(new Ledger.Append("a", e.replies.ref()));

    BackoffEvent.GaveUp gaveUp = e.events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    assertCausedBy(gaveUp.cause(), corrupt);
    watcher.expectTerminated(e.ref);
  }

  @Test
  void anEventHandlerThatThrowsAtEveryReplayIsStoppedByStopOnItsException() {
    // Pekko reports it as a recovery failure (JournalFailureException); stopOn matches the cause
    // chain, so the handler's exception type stops the entity instead of replaying it forever
    Entity e = new Entity();
    journal.persistForRecovery(e.id, List.of("a", Ledger.POISON));
    e.spawn(policy(e.events).withStopOn(IllegalStateException.class));
    TestProbe<Object> watcher = kit.createTestProbe();

    BackoffEvent.GaveUp gaveUp = e.events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    watcher.expectTerminated(e.ref);
  }

  @Test
  void repeatedJournalFailuresFollowTheFullJitterScheduleUnderTheCap() {
    Entity e = new Entity();
    journal.persistForRecovery(e.id, List.of("a"));
    journal.failNextNReads(e.id, 4, new IOException("journal unreachable"));
    e.spawn();

    long bound = Kits.MIN.toNanos();
    for (int attempt = 1; attempt <= 4; attempt++) {
      BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, attempt);
      assertTrue(
          scheduled.delay().toNanos() <= Math.min(bound, Kits.MAX.toNanos()),
          "attempt "
              + attempt
              + ": "
              + scheduled.delay()
              + " above the bound "
              + Duration.ofNanos(bound)
              + " or the cap "
              + Kits.MAX);
      bound *= 2;
      Kits.passDelay(kit.time(), scheduled);
      e.events.expectMessageClass(BackoffEvent.Restarted.class);
    }
    e.expectRecovered("a");
  }

  @Test
  void theRestartCountResetsAfterAHealthyPeriod() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    journal.failNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("a", e.replies.ref()));
    e.restartsAndRecovers(expectRestartScheduled(e.events, 1), "");

    kit.time().timePasses(Kits.RESET);
    BackoffEvent.BackoffReset reset = e.events.expectMessageClass(BackoffEvent.BackoffReset.class);
    assertEquals(1, reset.attempt());

    journal.failNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("b", e.replies.ref()));
    expectRestartScheduled(e.events, 1); // the first again, not the second
  }

  @Test
  void aJournalFailureWaitsForAPermitOfTheRestartBudget() {
    Entity e = new Entity();
    e.spawn(
        policy(e.events)
            .withBudget(RestartBudget.of(freshId("journal"), 10, Duration.ofSeconds(1))));
    e.recoveries.expectMessage("recovered:");
    journal.failNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("a", e.replies.ref()));

    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    Kits.passDelay(kit.time(), scheduled);
    e.events.expectMessageClass(BackoffEvent.WaitingForPermit.class);
    e.events.expectMessageClass(BackoffEvent.PermitGranted.class);
    e.events.expectMessageClass(BackoffEvent.Restarted.class);
    e.recoveries.expectMessage("recovered:");
  }

  @Test
  void commandsSentDuringTheBackoffAreHandledInOrderAfterRecovery() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");
    journal.failNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("lost", e.replies.ref()));
    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);

    // stashed by the supervisor during the backoff, then by the entity during its recovery
    e.ref.tell(new Ledger.Append("b", e.replies.ref()));
    e.ref.tell(new Ledger.Append("c", e.replies.ref()));
    e.ref.tell(new Ledger.Get(e.replies.ref()));
    e.ref.tell(new Ledger.Append("d", e.replies.ref()));
    e.replies.expectNoMessage(Duration.ofMillis(100));

    e.restartsAndRecovers(scheduled, "a");
    assertEquals(List.of("a,b", "a,b,c", "a,b,c", "a,b,c,d"), e.replies.receiveSeveralMessages(4));
    assertEquals(List.of("a", "b", "c", "d"), journal.persistedInStorage(e.id));
  }

  @Test
  void commandsTheEntityHadStashedItselfAreLostWhenItsJournalFails() {
    // The entity stashes commands itself while it recovers or persists; when its journal fails,
    // that stash goes with the failed incarnation. Only what the supervisor stashed survives.
    Entity e = new Entity();
    journal.failNextNReads(e.id, 2, new IOException("journal unreachable"));
    e.spawn();
    BackoffEvent.RestartScheduled first = expectRestartScheduled(e.events, 1);
    e.ref.tell(new Ledger.Append("b", e.replies.ref())); // stashed by the supervisor ...
    Kits.passDelay(
        kit.time(),
        first); // ... handed to the restarted entity, which stashes it while it recovers
    e.events.expectMessageClass(BackoffEvent.Restarted.class);
    BackoffEvent.RestartScheduled second =
        expectRestartScheduled(e.events, 2); // the recovery fails again
    e.restartsAndRecovers(second, "");
    e.replies.expectNoMessage(Duration.ofMillis(200));
    assertEquals(List.of(), journal.persistedInStorage(e.id));
  }

  @Test
  void aCommandHandlerThatThrowsRestartsTheEntity() {
    Entity e = new Entity().spawn();
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");
    IllegalStateException boom = new IllegalStateException("boom");
    e.ref.tell(new Ledger.Throw(boom));
    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertEquals(boom, scheduled.cause());
    e.restartsAndRecovers(scheduled, "a");
  }

  // ------------------------------------------------------------ how Pekko's own options compare

  @Test
  void pekkosOwnSuperviseAroundTheEntityDoesNotRestartItOnAJournalFailure() {
    // the difference wrap makes: Pekko's supervisor sees the failed behavior the entity returns,
    // not an exception, and the actor stops
    Entity e = new Entity();
    Behavior<Ledger.Command> pekko =
        Behaviors.supervise(new Ledger(e.id, e.recoveries.ref()))
            .onFailure(SupervisorStrategy.restartWithBackoff(Kits.MIN, Kits.MAX, 0.2));
    e.ref = spawned.track(kit.spawn(pekko));
    e.recoveries.expectMessage("recovered:");
    TestProbe<Object> watcher = kit.createTestProbe();

    journal.failNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("a", e.replies.ref()));
    watcher.expectTerminated(e.ref);
  }

  @Test
  void pekkosOnPersistFailureAloneDoesNotRestartTheEntityOnARejectedEvent() {
    Entity e = new Entity();
    e.ref =
        spawned.track(
            kit.spawn(
                new Ledger(
                    e.id,
                    e.recoveries.ref(),
                    SupervisorStrategy.restartWithBackoff(Kits.MIN, Kits.MAX, 0.2))));
    e.recoveries.expectMessage("recovered:");
    TestProbe<Object> watcher = kit.createTestProbe();

    journal.rejectNextPersisted(e.id);
    e.ref.tell(new Ledger.Append("rejected", e.replies.ref()));
    watcher.expectTerminated(e.ref);
  }

  @Test
  void onPersistFailureInsideWrapHandlesJournalFailuresBeforeWrapSeesThem() {
    Entity e = new Entity();
    Ledger ledger =
        new Ledger(
            e.id,
            e.recoveries.ref(),
            SupervisorStrategy.restartWithBackoff(Kits.MIN, Kits.MIN, 0.0));
    e.ref = spawned.track(kit.spawn(BackoffSupervisor.wrap(ledger, policy(e.events))));
    e.recoveries.expectMessage("recovered:");
    e.append("a", "a");

    journal.failNextPersisted(e.id);
    // The journal's failure reaches the entity after a round trip to the journal, and Pekko's
    // supervisor inside the entity puts its restart on the clock while it handles it, right after
    // it logs the failure: wait for that line before the clock moves, or a failure that arrived
    // late would put the restart after the step, and it would never come.
    LoggingTestKit.error("saw failure")
        .withSource(e.ref.path().toString())
        .expect(
            kit.system(),
            () -> {
              e.ref.tell(new Ledger.Append("b", e.replies.ref()));
              return null;
            });
    e.recoveries.expectNoMessage(Duration.ofMillis(100)); // the restart waits for the clock
    kit.time().timePasses(Kits.MIN); // Pekko's own backoff restarts the entity, inside wrap
    e.recoveries.expectMessage("recovered:a");
    e.append("c", "a,c");
    e.events.expectNoMessage(Duration.ofMillis(100)); // wrap saw nothing
  }

  @Test
  void onPersistFailureKeepsTheCommandsTheEntityHadStashedItself() {
    // the same sequence as commandsTheEntityHadStashedItselfAreLostWhenItsJournalFails, with
    // Pekko's own restart inside wrap: the entity's stash survives Pekko's restarts
    Entity e = new Entity();
    Ledger ledger =
        new Ledger(
            e.id,
            e.recoveries.ref(),
            SupervisorStrategy.restartWithBackoff(Kits.MIN, Kits.MIN, 0.0));
    journal.failNextNReads(e.id, 2, new IOException("journal unreachable"));
    e.ref = spawned.track(kit.spawn(BackoffSupervisor.wrap(ledger, policy(e.events))));
    e.expectFailedReplay();
    e.ref.tell(new Ledger.Append("b", e.replies.ref())); // stashed by Pekko's supervisor ...
    kit.time()
        .timePasses(
            Kits.MIN); // ... handed to the restarted entity, which stashes it while it recovers
    e.expectFailedReplay();
    kit.time().timePasses(Kits.MIN);
    e.recoveries.expectMessage("recovered:");
    e.replies.expectMessage("b");
    e.events.expectNoMessage(Duration.ofMillis(100)); // wrap saw nothing
  }

  @Test
  void whenOnPersistFailureGivesUpWrapRestartsTheEntity() {
    Entity e = new Entity();
    Ledger ledger =
        new Ledger(
            e.id,
            e.recoveries.ref(),
            SupervisorStrategy.restartWithBackoff(Kits.MIN, Kits.MIN, 0.0).withMaxRestarts(1));
    IOException down = new IOException("journal unreachable");
    journal.failNextNReads(e.id, 2, down);
    e.ref = spawned.track(kit.spawn(BackoffSupervisor.wrap(ledger, policy(e.events))));
    e.expectFailedReplay();
    kit.time().timePasses(Kits.MIN); // Pekko's restart, whose recovery fails again: Pekko gives up
    BackoffEvent.RestartScheduled scheduled = expectRestartScheduled(e.events, 1);
    assertCausedBy(scheduled.cause(), down);
    e.restartsAndRecovers(scheduled, "");
  }
}
