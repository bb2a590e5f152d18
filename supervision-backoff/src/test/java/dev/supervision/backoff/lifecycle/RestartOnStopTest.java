package dev.supervision.backoff.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.ChildStopped;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.Receives;
import dev.supervision.backoff.testsupport.SupervisorLines;
import dev.supervision.backoff.testsupport.WatchingParent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.internal.PoisonPill;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code withRestartOnStop(true)} (classic {@code BackoffOpts.onStop}): a child that stops itself is
 * restarted like a failed one, counted, on the same schedule, under {@code maxRestarts} and the
 * budget; {@code withFinalStopMessage} makes a stop final, and so does any stop from outside.
 */
final class RestartOnStopTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration B = Duration.ofMillis(100);

  static BackoffPolicy policy(BackoffProbe events) {
    return BackoffPolicy.exponential(B, Duration.ofSeconds(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1))
        .withRestartOnStop(true)
        .withListener(events.listener());
  }

  /**
   * "started-n" at each start; "stop" stops it (its callback says "callback"); "final" and other
   * messages are echoed as "got:m"; PostStop says "postStop"; a PoisonPill stops it.
   */
  static Behavior<String> child(TestProbe<String> probe, AtomicInteger stopsInSetup) {
    AtomicInteger starts = new AtomicInteger();
    return Behaviors.setup(
        ctx -> {
          if (stopsInSetup.getAndDecrement() > 0) {
            probe.ref().tell("stopped-in-setup");
            return Behaviors.stopped();
          }
          probe.ref().tell("started-" + starts.incrementAndGet());
          return Behaviors.receive(String.class)
              .onMessageEquals("stop", () -> Behaviors.stopped(() -> probe.ref().tell("callback")))
              .onMessage(
                  String.class,
                  m -> {
                    probe.ref().tell("got:" + m);
                    return Behaviors.same();
                  })
              .onSignal(
                  PostStop.class,
                  s -> {
                    probe.ref().tell("postStop");
                    return Behaviors.same();
                  })
              .onSignal(PoisonPill.class, s -> Behaviors.stopped())
              .build();
        });
  }

  static Behavior<String> child(TestProbe<String> probe) {
    return child(probe, new AtomicInteger());
  }

  /** {@link #child} under {@link #policy} with the final stop message {@code rule}. */
  static ActorRef<String> spawnWithFinalStop(
      TestProbe<String> probe, BackoffProbe events, Predicate<Object> rule) {
    return kit.spawn(
        BackoffSupervisor.wrap(child(probe), policy(events).withFinalStopMessage(rule)));
  }

  @Test
  void aChildThatStopsItselfIsRestartedAfterTheBackoffWithItsStashKept() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events)));
    probe.expectMessage("started-1");
    actor.tell("stop");
    probe.expectMessage("postStop"); // the behavior that stopped, as when an actor stops
    probe.expectMessage("callback"); // and the stopped behavior's callback
    BackoffEvent.RestartScheduled scheduled = events.expectRestartScheduled();
    assertTrue(scheduled.afterStop());
    assertInstanceOf(ChildStopped.class, scheduled.cause());
    assertEquals(1, scheduled.attempt());
    assertEquals(B, scheduled.delay());
    actor.tell("kept");
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-2");
    probe.expectMessage("got:kept");

    actor.tell("stop"); // counted: the second delay of the schedule
    probe.expectMessage("postStop");
    probe.expectMessage("callback");
    BackoffEvent.RestartScheduled second = events.expectRestartScheduled();
    assertEquals(2, second.attempt());
    assertEquals(B.multipliedBy(2), second.delay());
  }

  @Test
  void maxRestartsStopsTheActorCleanlyAfterTheLastStop() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Behavior<String> supervised =
        BackoffSupervisor.wrap(child(probe), policy(events).withMaxRestarts(1));
    TestProbe<ActorRef<String>> refs = kit.createTestProbe();
    TestProbe<WatchingParent.Ended> ended = kit.createTestProbe();
    kit.spawn(WatchingParent.reporting(supervised, "child", refs.ref(), ended.ref()));
    ActorRef<String> actor = refs.receiveMessage();
    probe.expectMessage("started-1");
    actor.tell("stop");
    probe.expectMessage("postStop");
    probe.expectMessage("callback");
    events.expectRestartScheduled();
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-2");
    actor.tell("stop");
    BackoffEvent.GaveUp gaveUp = events.expectGaveUp();
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, gaveUp.reason());
    assertInstanceOf(ChildStopped.class, gaveUp.cause());
    assertTrue(gaveUp.afterStop(), "the child stopped itself");
    probe.expectTerminated(actor);
    // not ChildFailed: the actor stopped, it did not fail
    assertEquals(new WatchingParent.Ended(actor, null), ended.receiveMessage());
  }

  /**
   * A {@code ChildStopped} the child throws is a failure: its events say {@code afterStop() ==
   * false}, its line is a failure's, and the last one fails the actor with it.
   */
  @Test
  void aChildStoppedThatTheChildThrowsIsAFailure_itsLastOneFailsTheActorWithIt() {
    TestProbe<WatchingParent.Ended> parentSaw = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ChildStopped thrown = new ChildStopped(); // public: user code can throw one too
    Behavior<String> throwing =
        Behaviors.receive(String.class)
            .onMessage(
                String.class,
                m -> {
                  throw thrown;
                })
            .build();
    Behavior<String> supervised =
        BackoffSupervisor.wrap(throwing, policy(events).withMaxRestarts(1));
    TestProbe<ActorRef<String>> refs = kit.createTestProbe();
    kit.spawn(
        WatchingParent.reporting(supervised, "throws-child-stopped", refs.ref(), parentSaw.ref()));
    ActorRef<String> actor = refs.receiveMessage();
    try (SupervisorLines lines = new SupervisorLines()) {
      actor.tell("fail");
      BackoffEvent.RestartScheduled scheduled = events.expectRestartScheduled();
      assertEquals(thrown, scheduled.cause());
      assertFalse(scheduled.afterStop(), "thrown, not a stop of the child");
      assertEquals(
          1,
          lines.about(actor, Level.WARN, "failed (attempt 1), restarting in").size(),
          () -> "a failure's line: " + lines.about(actor));
      assertEquals(0, lines.about(actor, Level.WARN, "] stopped itself (attempt").size());
    }
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    actor.tell("fail again");
    BackoffEvent.GaveUp gaveUp = events.expectGaveUp();
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, gaveUp.reason());
    assertEquals(thrown, gaveUp.cause());
    assertFalse(gaveUp.afterStop(), "thrown, not a stop of the child");
    // failed with it (not a NullPointerException)
    assertEquals(new WatchingParent.Ended(actor, thrown), parentSaw.receiveMessage());
  }

  @Test
  void withoutTheOptionAStopStopsTheActor() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events).withRestartOnStop(false)));
    probe.expectMessage("started-1");
    actor.tell("stop");
    probe.expectTerminated(actor);
    events.expectNoEvent(Duration.ofMillis(100));
  }

  @Test
  void aStopAfterAFinalStopMessageIsFinalEvenWhenItComesLater() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe), policy(events).withFinalStopMessage(m -> m.equals("final"))));
    probe.expectMessage("started-1");
    actor.tell("final"); // handled without stopping
    probe.expectMessage("got:final");
    actor.tell("other");
    probe.expectMessage("got:other");
    actor.tell("stop"); // the stop that follows is final
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
    events.expectNoEvent(Duration.ofMillis(100));
  }

  @Test
  void aFinalStopMessageDuringABackoffStopsTheActorAtOnce() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe), policy(events).withFinalStopMessage(m -> m.equals("final"))));
    probe.expectMessage("started-1");
    actor.tell("stop");
    events.expectRestartScheduled();
    actor.tell("kept");
    actor.tell("final");
    probe.expectTerminated(actor);
    BackoffEvent.StoppedDuringBackoff stopped =
        events.expectEvent(BackoffEvent.StoppedDuringBackoff.class);
    assertEquals(1, stopped.droppedMessages());
  }

  /**
   * The rule is asked when the child gets a message, so a stashed message is asked again when the
   * restarted child gets it: a rule that reads state of its own (here: shutting down) and did not
   * match during the backoff matches then, and the child's next stop is final.
   */
  @Test
  void aStashedMessageIsAskedAgainWhenTheRestartedChildGetsIt() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<Object> asked = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    AtomicBoolean shuttingDown = new AtomicBoolean();
    ActorRef<String> actor =
        spawnWithFinalStop(
            probe,
            events,
            m -> {
              asked.ref().tell(m);
              return shuttingDown.get() && m.equals("final");
            });
    probe.expectMessage("started-1");
    actor.tell("stop");
    asked.expectMessage("stop");
    probe.expectMessage("postStop");
    probe.expectMessage("callback");
    events.expectRestartScheduled();
    actor.tell("final");
    asked.expectMessage("final"); // during the backoff: no match, stashed
    shuttingDown.set(true);
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-2");
    asked.expectMessage("final"); // replayed: a match now
    probe.expectMessage("got:final");
    actor.tell("stop"); // final
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
    events.expectNoEvent(Duration.ofMillis(100));
  }

  @Test
  void aFinalStopMessageDuringABackoffStopsTheActorWithoutFailingIt() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<String> parentSaw = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> parent =
        kit.spawn(
            WatchingParent.of(
                BackoffSupervisor.wrap(
                    child(probe), policy(events).withFinalStopMessage(m -> m.equals("final"))),
                "final-during-backoff",
                parentSaw.ref()));
    probe.expectMessage("started-1");
    parent.tell("stop");
    events.expectRestartScheduled();
    parent.tell("final");
    events.expectEvent(BackoffEvent.StoppedDuringBackoff.class);
    parentSaw.expectMessage("terminated"); // a plain stop: the parent sees no ChildFailed
    kit.testKit().stop(parent);
  }

  @Test
  void aPostStopThatThrowsAfterTheChildStoppedItselfIsLoggedAndTheRestartGoesOn() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    AtomicInteger starts = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started-" + starts.incrementAndGet());
              return Behaviors.receive(String.class)
                  .onMessageEquals("stop", Behaviors::stopped)
                  .onSignal(
                      PostStop.class,
                      s -> {
                        throw new IllegalStateException("cleanup failed");
                      })
                  .build();
            });
    try (SupervisorLines lines = new SupervisorLines()) {
      ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy(events)));
      probe.expectMessage("started-1");
      actor.tell("stop");
      assertInstanceOf(ChildStopped.class, events.expectRestartScheduled().cause());
      List<ILoggingEvent> errors = lines.about(actor, ch.qos.logback.classic.Level.ERROR, "");
      assertEquals(1, errors.size(), () -> "one ERROR line: " + lines.about(actor));
      assertTrue(
          errors
              .get(0)
              .getFormattedMessage()
              .endsWith("failed in PostStop after it stopped itself; the restart goes on"),
          errors.get(0)::getFormattedMessage);
      events.advanceToRestart(kit.time());
      events.expectRestarted();
      probe.expectMessage("started-2");
    }
  }

  @Test
  void aPoisonPillStopIsFinal() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events)));
    probe.expectMessage("started-1");
    actor.unsafeUpcast().tell(PoisonPill.instance()); // what Cluster Sharding's passivation sends
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
    events.expectNoEvent(Duration.ofMillis(100));
  }

  @Test
  void aStopFromTheParentIsFinal() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events)));
    probe.expectMessage("started-1");
    kit.testKit().stop(actor);
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
    events.expectNoEvent(Duration.ofMillis(100));
  }

  @Test
  void aStopInSetupIsRestartedAndCounted() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe, new AtomicInteger(2)), policy(events)));
    probe.expectMessage("stopped-in-setup");
    assertEquals(1, events.expectRestartScheduled().attempt());
    actor.tell("kept");
    events.advanceToRestart(kit.time());
    probe.expectMessage("stopped-in-setup"); // the first restart stops in its setup again
    assertEquals(2, events.expectRestartScheduled().attempt());
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-1");
    probe.expectMessage("got:kept");
  }

  @Test
  void aStopWaitsForTheBudgetsPermitLikeAFailure() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe),
                policy(events)
                    .withBudget(RestartBudget.of("restart-on-stop", 10, Duration.ofSeconds(1)))));
    probe.expectMessage("started-1");
    actor.tell("stop");
    probe.expectMessage("postStop");
    probe.expectMessage("callback");
    assertTrue(events.expectRestartScheduled().afterStop());
    events.advanceToRestart(kit.time());
    assertEquals("restart-on-stop", events.expectWaitingForPermit().budget());
    events.expectPermitGranted();
    events.expectRestarted();
    probe.expectMessage("started-2");
  }

  @Test
  void aFinalStopPredicateThatThrowsCountsAsNoMatch() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        spawnWithFinalStop(
            probe,
            events,
            m -> {
              throw new IllegalStateException("broken rule");
            });
    probe.expectMessage("started-1");
    actor.tell("stop"); // not final: restarted
    probe.expectMessage("postStop");
    probe.expectMessage("callback");
    assertFalse(events.expectRestartScheduled().cause() instanceof IllegalStateException);
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-2");
  }

  @Test
  void aFinalStopPredicateThatThrowsIsOneWarnLinePerMessage_duringABackoffToo() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<Object> handled = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    BackoffHandler stashing =
        (message, untilRestart) -> {
          handled.ref().tell(message);
          return false; // stashed
        };
    try (SupervisorLines lines = new SupervisorLines()) {
      ActorRef<String> actor =
          kit.spawn(
              BackoffSupervisor.wrap(
                  child(probe),
                  policy(events)
                      .withHandlerWhileBackingOff(stashing)
                      .withFinalStopMessage(
                          m -> {
                            throw new IllegalStateException("broken rule");
                          })));
      probe.expectMessage("started-1");
      actor.tell("stop"); // tested once, while the child runs
      events.expectRestartScheduled();
      actor.tell("kept"); // tested once more, during the backoff, before the handler sees it
      handled.expectMessage("kept");
      List<ILoggingEvent> warnings =
          lines.about(actor, ch.qos.logback.classic.Level.WARN, "final stop message predicate");
      assertEquals(2, warnings.size(), () -> "one WARN line per message: " + lines.about(actor));
      for (ILoggingEvent warning : warnings) {
        assertTrue(
            warning
                .getFormattedMessage()
                .contains("threw on a message of java.lang.String; taken as no match"),
            warning::getFormattedMessage);
        assertInstanceOf(
            IllegalStateException.class,
            ((ch.qos.logback.classic.spi.ThrowableProxy) warning.getThrowableProxy())
                .getThrowable());
      }
    }
  }

  /**
   * The final stop predicate is asked about messages only: a signal stashed during the backoff and
   * replayed to the restarted child is not one, even for a predicate that matches everything this
   * actor is never sent (here: anything that is not a String).
   */
  @Test
  void theFinalStopPredicateIsNotAskedAboutASignalReplayedFromTheStash() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> watched = kit.spawn(Behaviors.<String>empty());
    AtomicInteger starts = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              int n = starts.incrementAndGet();
              if (n == 1) {
                ctx.watch(watched);
              }
              probe.ref().tell("started-" + n);
              return Receives.telling(
                      Receives.failing().onMessageEquals("stop", Behaviors::stopped),
                      Terminated.class,
                      probe.ref(),
                      "saw-terminated")
                  .build();
            });
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child, policy(events).withFinalStopMessage(m -> !(m instanceof String))));
    probe.expectMessage("started-1");
    actor.tell("fail");
    events.expectRestartScheduled();
    kit.testKit().stop(watched); // its Terminated reaches the actor during the backoff: stashed
    probe.expectNoMessage(Duration.ofMillis(200));
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-2");
    probe.expectMessage("saw-terminated"); // replayed
    actor.tell("stop"); // no final stop message was seen: restarted
    assertTrue(events.expectRestartScheduled().afterStop());
  }
}
