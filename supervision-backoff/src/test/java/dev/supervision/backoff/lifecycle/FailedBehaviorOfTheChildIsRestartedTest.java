package dev.supervision.backoff.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.Receives;
import dev.supervision.backoff.testsupport.TestChild;
import dev.supervision.backoff.testsupport.WatchingParent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.internal.BehaviorImpl;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A child that fails by returning a failed behavior that carries a persistence failure ({@code
 * BehaviorImpl.failed(cause)}, what Pekko's persistent behaviors return on a journal or store
 * failure, from their internal stop supervisor) instead of throwing is restarted like one that
 * throws the cause, wherever the supervisor receives the child's behavior: its start, a message, a
 * signal, the replay of the stash, a restart. Any other failed behavior (a user's inner {@code
 * SupervisorStrategy.stop()}) stops the actor, as under Pekko's supervisors.
 */
final class FailedBehaviorOfTheChildIsRestartedTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /** A persistence failure, as a durable state store fails (what the supervisor restarts). */
  static final class Soft
      extends org.apache.pekko.persistence.state.exception.DurableStateException {
    Soft(String message) {
      super(message, null);
    }
  }

  static BackoffPolicy policy(TestProbe<BackoffEvent> events) {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1))
        .withListener(events.ref()::tell);
  }

  /**
   * "started" at each start; "fail-soft" returns a failed behavior carrying {@code cause}; "kill-kid"
   * stops a watched child, whose Terminated returns a failed behavior; other messages are echoed as
   * "got:m".
   */
  static Behavior<String> child(ActorRef<String> probe, Soft cause, AtomicInteger failedStarts) {
    return Behaviors.setup(
        ctx -> {
          if (failedStarts.getAndDecrement() > 0) {
            probe.tell("setup-failed");
            return BehaviorImpl.failed(cause);
          }
          probe.tell("started");
          ActorRef<Void> kid = ctx.spawnAnonymous(Behaviors.<Void>empty());
          ctx.watch(kid);
          return Behaviors.receive(String.class)
              .onMessageEquals("fail-soft", () -> BehaviorImpl.failed(cause))
              .onMessageEquals(
                  "kill-kid",
                  () -> {
                    ctx.stop(kid);
                    return Behaviors.same();
                  })
              .onMessage(
                  String.class,
                  m -> {
                    probe.tell("got:" + m);
                    return Behaviors.same();
                  })
              .onSignal(Terminated.class, t -> BehaviorImpl.failed(cause))
              .onSignal(
                  PreRestart.class,
                  s -> {
                    probe.tell("preRestart");
                    return Behaviors.same();
                  })
              .onSignal(
                  PostStop.class,
                  s -> {
                    probe.tell("postStop");
                    return Behaviors.same();
                  })
              .build();
        });
  }

  private static BackoffEvent.RestartScheduled expectScheduled(
      TestProbe<BackoffEvent> events, int attempt, long delayMs, Throwable cause) {
    BackoffEvent.RestartScheduled scheduled =
        assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    assertEquals(attempt, scheduled.attempt());
    assertEquals(Duration.ofMillis(delayMs), scheduled.delay());
    assertSame(cause, scheduled.cause());
    return scheduled;
  }

  @Test
  void aFailedBehaviorReturnedForAMessageIsRestartedWithBackoff() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Soft cause = new Soft("journal down");
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(child(probe.ref(), cause, new AtomicInteger()), policy(events)));
    probe.expectMessage("started");
    actor.tell("fail-soft");
    probe.expectMessage("preRestart");
    expectScheduled(events, 1, 100, cause);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    actor.tell("ping");
    probe.expectMessage("got:ping");
  }

  @Test
  void aFailedBehaviorReturnedForASignalIsRestartedWithBackoff() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Soft cause = new Soft("signal");
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(child(probe.ref(), cause, new AtomicInteger()), policy(events)));
    probe.expectMessage("started");
    actor.tell("kill-kid"); // its Terminated returns the failed behavior
    probe.expectMessage("preRestart");
    expectScheduled(events, 1, 100, cause);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
  }

  @Test
  void aFailedBehaviorReturnedBySetupIsRestartedAtTheStartAndAtARestart() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Soft cause = new Soft("setup");
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe.ref(), cause, new AtomicInteger(2)), policy(events)));
    probe.expectMessage("setup-failed"); // the first start
    expectScheduled(events, 1, 100, cause);
    actor.tell("kept"); // stashed through both backoffs
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("setup-failed"); // the first restart
    expectScheduled(events, 2, 200, cause);
    kit.time().timePasses(Duration.ofMillis(200));
    probe.expectMessage("started");
    probe.expectMessage("got:kept");
  }

  @Test
  void aFailedBehaviorReturnedDuringTheStashReplayRestartsAndKeepsTheRestOfTheStash() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Soft cause = new Soft("replay");
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(child(probe.ref(), cause, new AtomicInteger()), policy(events)));
    probe.expectMessage("started");
    actor.tell("fail-soft");
    probe.expectMessage("preRestart");
    expectScheduled(events, 1, 100, cause);
    actor.tell("a");
    actor.tell("fail-soft");
    actor.tell("b");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("got:a");
    probe.expectMessage("preRestart"); // the replayed "fail-soft"
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    expectScheduled(events, 2, 200, cause);
    kit.time().timePasses(Duration.ofMillis(200));
    probe.expectMessage("started");
    probe.expectMessage("got:b");
  }

  @Test
  void aPermanentFailureCarriedByAFailedBehaviorStopsTheActor() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Soft cause = new Soft("permanent");
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe.ref(), cause, new AtomicInteger()),
                policy(events).withStopOn(Soft.class)));
    probe.expectMessage("started");
    actor.tell("fail-soft");
    probe.expectMessage("postStop");
    BackoffEvent.GaveUp gaveUp =
        assertInstanceOf(BackoffEvent.GaveUp.class, events.receiveMessage());
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    assertSame(cause, gaveUp.cause());
    probe.expectTerminated(actor);
  }

  /** A child that throws an IllegalStateException on every message. */
  static Behavior<String> throwing(TestProbe<String> probe, AtomicInteger starts) {
    return Behaviors.setup(
        ctx -> {
          probe.ref().tell("started-" + starts.incrementAndGet());
          return Behaviors.receive(String.class)
              .onMessage(
                  String.class,
                  m -> {
                    throw m.equals("store-down") ? new Soft(m) : new IllegalStateException(m);
                  })
              .onSignal(
                  PostStop.class,
                  s -> {
                    probe.ref().tell("postStop");
                    return Behaviors.same();
                  })
              .build();
        });
  }

  @Test
  void anInnerPekkoStopSupervisorStopsTheActorAsUnderPekko() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    AtomicInteger starts = new AtomicInteger();
    // the user's inner stop turns the throw into a failed behavior; the actor stops (before: it
    // was restarted by the wrap for ever)
    Behavior<String> inner =
        Behaviors.supervise(throwing(probe, starts))
            .onFailure(
                IllegalStateException.class, SupervisorStrategy.stop().withLoggingEnabled(false));
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(inner, policy(events)));
    probe.expectMessage("started-1");
    actor.tell("boom");
    probe.expectMessage("postStop");
    BackoffEvent.GaveUp gaveUp =
        assertInstanceOf(BackoffEvent.GaveUp.class, events.receiveMessage());
    assertEquals(BackoffEvent.Reason.INNER_STOP, gaveUp.reason());
    assertEquals(
        "boom", assertInstanceOf(IllegalStateException.class, gaveUp.cause()).getMessage());
    probe.expectTerminated(actor);
  }

  @Test
  void aPersistenceFailureCaughtByAnInnerStopSupervisorIsStillRestarted() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    AtomicInteger starts = new AtomicInteger();
    // what an EventSourcedBehavior or a DurableStateBehavior does inside itself
    Behavior<String> inner =
        Behaviors.supervise(throwing(probe, starts))
            .onFailure(SupervisorStrategy.stop().withLoggingEnabled(false));
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(inner, policy(events)));
    probe.expectMessage("started-1");
    actor.tell("store-down");
    BackoffEvent.RestartScheduled scheduled =
        assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    assertInstanceOf(Soft.class, scheduled.cause());
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started-2");
  }

  @Test
  void aFailedBehaviorWithAnotherCauseReturnedDirectlyStopsTheActorWithThatCause() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    IllegalStateException cause = new IllegalStateException("not persistence");
    Behavior<String> child =
        Behaviors.receive(String.class)
            .onMessage(String.class, m -> BehaviorImpl.<String>failed(cause))
            .onSignal(
                PostStop.class,
                s -> {
                  probe.ref().tell("postStop");
                  return Behaviors.same();
                })
            .build();
    TestProbe<WatchingParent.Ended> parentProbe = kit.createTestProbe();
    TestProbe<ActorRef<String>> spawned = kit.createTestProbe();
    kit.spawn(
            WatchingParent.reporting(
                BackoffSupervisor.wrap(child, policy(events)),
                "c",
                spawned.ref(),
                parentProbe.ref()))
        .tell("fail");
    probe.expectMessage("postStop");
    WatchingParent.Ended ended = parentProbe.receiveMessage();
    assertEquals(spawned.receiveMessage(), ended.child());
    assertSame(cause, ended.cause());
    assertEquals(
        BackoffEvent.Reason.INNER_STOP,
        assertInstanceOf(BackoffEvent.GaveUp.class, events.receiveMessage()).reason());
  }

  @Test
  void aFailedBehaviorReturnedForTheOuterSupervisorsPreRestartIsNotRestartedByTheInnerOne() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Soft cause = new Soft("cleanup");
    AtomicInteger starts = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started-" + starts.incrementAndGet());
              return Behaviors.receive(String.class)
                  .onMessageEquals(
                      "permanent",
                      () -> {
                        throw new IllegalStateException("permanent");
                      })
                  .onSignal(
                      PreRestart.class,
                      s -> {
                        probe.ref().tell("preRestart");
                        return BehaviorImpl.failed(
                            cause); // ignored: the outer supervisor is restarting
                      })
                  .build();
            });
    // the inner wrap gives up on the permanent failure; Pekko's outer restart sends PreRestart
    Behavior<String> inner =
        BackoffSupervisor.wrap(child, policy(events).withStopOn(IllegalStateException.class));
    ActorRef<String> actor =
        kit.spawn(
            Behaviors.supervise(inner)
                .onFailure(SupervisorStrategy.restart().withLoggingEnabled(false)));
    probe.expectMessage("started-1");
    actor.tell("permanent");
    assertInstanceOf(BackoffEvent.GaveUp.class, events.receiveMessage());
    probe.expectMessage("preRestart");
    probe.expectMessage("started-2"); // restarted by the outer supervisor at once
    events.expectNoMessage(java.time.Duration.ofMillis(200)); // no backoff of the inner one
  }

  /** A probe of the {@code Dropped} messages published on the event stream. */
  private static TestProbe<Dropped> droppedProbe() {
    TestProbe<Dropped> dropped = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(dropped.ref()), Dropped.class);
    return dropped;
  }

  private static void expectInnerStop(TestProbe<BackoffEvent> events, Throwable cause) {
    BackoffEvent.GaveUp gaveUp =
        assertInstanceOf(BackoffEvent.GaveUp.class, events.receiveMessage());
    assertEquals(BackoffEvent.Reason.INNER_STOP, gaveUp.reason());
    assertSame(cause, gaveUp.cause());
  }

  @Test
  void aFailedBehaviorWithAnotherCauseReturnedAtARestartStopsTheActorAndDropsTheStash() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<String> parentSaw = kit.createTestProbe();
    TestProbe<Dropped> dropped = droppedProbe();
    IllegalStateException cause = new IllegalStateException("not persistence");
    AtomicInteger starts = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx ->
                starts.incrementAndGet() > 1
                    ? BehaviorImpl.failed(cause) // an inner stop, at the restart
                    : TestChild.create(probe.ref()));
    ActorRef<String> parent =
        kit.spawn(
            WatchingParent.of(
                BackoffSupervisor.wrap(child, policy(events)),
                "fails-at-restart",
                parentSaw.ref()));
    probe.expectMessage("started");
    parent.tell("fail");
    parent.tell("kept"); // stashed
    probe.expectMessage("preRestart");
    assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    kit.time().timePasses(Duration.ofMillis(100));
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    expectInnerStop(events, cause);
    assertEquals("kept", dropped.receiveMessage().message());
    parentSaw.expectMessage("child-failed");
    kit.testKit().stop(parent);
  }

  @Test
  void aFailedBehaviorWithAnotherCauseReturnedDuringTheStashReplayStopsTheActorAndDropsTheRest() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<String> parentSaw = kit.createTestProbe();
    TestProbe<Dropped> dropped = droppedProbe();
    IllegalStateException cause = new IllegalStateException("not persistence");
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Receives.reporting(
                      Receives.failing()
                          .onMessageEquals("inner-stop", () -> BehaviorImpl.failed(cause)),
                      "got:",
                      probe.ref())
                  .build();
            });
    ActorRef<String> parent =
        kit.spawn(
            WatchingParent.of(
                BackoffSupervisor.wrap(child, policy(events)), "fails-in-replay", parentSaw.ref()));
    probe.expectMessage("started");
    parent.tell("fail");
    parent.tell("a");
    parent.tell("inner-stop");
    parent.tell("b");
    assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("got:a");
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    expectInnerStop(events, cause);
    assertEquals("b", dropped.receiveMessage().message());
    parentSaw.expectMessage("child-failed");
    probe.expectNoMessage(Duration.ofMillis(100)); // "b" never reached the child
    kit.testKit().stop(parent);
  }
}
