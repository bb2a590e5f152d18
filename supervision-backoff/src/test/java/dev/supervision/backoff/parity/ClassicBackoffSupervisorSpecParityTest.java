package dev.supervision.backoff.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.internal.PoisonPill;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cases of Pekko 1.7.0's classic {@code BackoffSupervisorSpec} and {@code
 * BackoffOnRestartSupervisorSpec} ({@code actor-tests}, package {@code org.apache.pekko.pattern})
 * that apply to a typed supervisor, rewritten as JUnit 5 + {@code ManualTime} tests against {@link
 * BackoffSupervisor#wrap}. Each test's {@link DisplayName} is the Scala test's name. Classic's
 * {@code BackoffOpts.onStop(...)} becomes {@code withRestartOnStop(true)}, {@code onFailure(...)}
 * the default; {@code randomFactor} becomes {@code Jitter.none()}; the child's {@code
 * BackoffSupervisor.Reset} becomes {@code BackoffSupervisor.resetBackoff(ctx)}; {@code
 * GetRestartCount} becomes the {@code attempt} of the events.
 *
 * <p>Where the typed supervisor differs on purpose, the test pins the difference and says so:
 *
 * <ul>
 *   <li>the child is not an actor of its own but the actor's behavior, so a {@code PoisonPill} sent
 *       to it stops the actor for good (classic restarts a child that was sent one under {@code
 *       onStop}); a child that stops itself is restarted;
 *   <li>messages that arrive during a backoff without a handler are stashed and delivered after the
 *       restart (classic sends them to dead letters).
 * </ul>
 *
 * <p>Skipped: "correctly calculate the delay" (classic's {@code RetrySupport.calculateDelay}; this
 * library's schedule has its own tests), "forward messages from the child to the parent of the
 * supervisor" and "accept commands while child is terminating" (there is no separate child actor),
 * "respect withinTimeRange property of OneForOneStrategy" and "keep restarting when failures happen
 * outside of withinTimeRange" (there is no strategy with a time range; the count resets after
 * {@code resetAfter}), and the {@code GetCurrentChild} queries (there is no child reference).
 */
final class ClassicBackoffSupervisorSpecParityTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  static final Duration MIN = Duration.ofMillis(100);

  /** {@code BackoffOpts.onFailure(child, "c1", 100.millis, 3.seconds, 0.0)}, no reset in a test. */
  static BackoffPolicy onFailure(BackoffProbe events) {
    return BackoffPolicy.exponential(MIN, Duration.ofSeconds(3))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1))
        .withListener(events.listener());
  }

  /** {@code BackoffOpts.onStop(...)}. */
  static BackoffPolicy onStop(BackoffProbe events) {
    return onFailure(events).withRestartOnStop(true);
  }

  /**
   * Classic's {@code Child}: echoes every message; "boom" throws; "stop" is echoed, "quit" stops
   * it; "hello" resets the backoff (classic's {@code ManualChild}); "started" on every start.
   */
  static Behavior<String> child(TestProbe<String> probe) {
    return Behaviors.setup(
        ctx -> {
          probe.ref().tell("started");
          return Behaviors.receive(String.class)
              .onMessageEquals(
                  "boom",
                  () -> {
                    throw new IllegalStateException("boom");
                  })
              .onMessageEquals("quit", Behaviors::stopped)
              .onMessage(
                  String.class,
                  m -> {
                    if (m.equals("hello")) {
                      BackoffSupervisor.resetBackoff(ctx);
                    }
                    probe.ref().tell(m);
                    return Behaviors.same();
                  })
              .build();
        });
  }

  @Test
  @DisplayName("start child again when it stops when using `Backoff.onStop`")
  void startChildAgainWhenItStops() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), onStop(events)));
    probe.expectMessage("started");
    actor.tell("quit"); // classic: c1 ! PoisonPill; here the child stops itself
    assertTrue(events.expectRestartScheduled().afterStop());
    events.advanceToRestart(kit.time());
    probe.expectMessage("started");
  }

  @Test
  @DisplayName(
      "(difference) start child again when it stops when using `Backoff.onStop`: a PoisonPill is"
          + " final")
  void aPoisonPillIsFinal() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    // as Cluster Sharding runs an entity: an unhandled PoisonPill stops it
    ActorRef<String> actor =
        kit.spawn(
            Behaviors.intercept(
                org.apache.pekko.actor.typed.internal.PoisonPillInterceptor::new,
                BackoffSupervisor.wrap(child(probe), onStop(events))));
    probe.expectMessage("started");
    actor.unsafeUpcast().tell(PoisonPill.instance());
    probe.expectTerminated(actor);
  }

  @Test
  @DisplayName("forward messages to the child")
  void forwardMessagesToTheChild() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    for (BackoffPolicy policy : new BackoffPolicy[] {onStop(events), onFailure(events)}) {
      ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), policy));
      probe.expectMessage("started");
      actor.tell("hello-there");
      probe.expectMessage("hello-there");
    }
  }

  @Test
  @DisplayName("support default stopping strategy when using `Backoff.onStop`")
  void supportDefaultStoppingStrategyWithOnStop() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), onStop(events)));
    probe.expectMessage("started");
    actor.tell("boom"); // a failure is restarted too
    assertEquals(1, events.expectRestartScheduled().attempt()); // RestartCount(1)
    events.advanceToRestart(kit.time());
    probe.expectMessage("started");
  }

  @Test
  @DisplayName("support manual reset")
  void supportManualReset() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    for (BackoffPolicy policy :
        new BackoffPolicy[] {
          onStop(events).withManualReset(), onFailure(events).withManualReset()
        }) {
      ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), policy));
      probe.expectMessage("started");
      actor.tell("boom");
      assertEquals(1, events.expectRestartScheduled().attempt()); // RestartCount(1)
      events.advanceToRestart(kit.time());
      events.expectRestarted();
      probe.expectMessage("started");
      actor.tell("hello"); // the child resets
      probe.expectMessage("hello");
      assertEquals(1, events.expectReset().attempts()); // RestartCount(0)
      actor.tell("boom");
      assertEquals(1, events.expectRestartScheduled().attempt()); // counted from 0 again
      kit.testKit().stop(actor);
      events.expectEvent(BackoffEvent.StoppedDuringBackoff.class);
    }
  }

  @Test
  @DisplayName("reply to sender if replyWhileStopped is specified")
  void replyToSenderWhileStopped() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<String> sender = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe),
                onFailure(events)
                    .withHandlerWhileBackingOff(
                        (message, untilRestart) -> {
                          sender.ref().tell("child was stopped");
                          return true;
                        })));
    probe.expectMessage("started");
    actor.tell("boom");
    events.expectRestartScheduled();
    actor.tell("boom");
    sender.expectMessage("child was stopped");
  }

  @Test
  @DisplayName("use provided actor while stopped and withHandlerWhileStopped is specified")
  void useProvidedActorWhileStopped() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<String> handler = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe),
                onFailure(events)
                    .withHandlerWhileBackingOff(
                        (message, untilRestart) -> {
                          handler.ref().tell((String) message); // forwarded
                          return true;
                        })));
    probe.expectMessage("started");
    actor.tell("boom");
    events.expectRestartScheduled();
    actor.tell("still there?");
    handler.expectMessage("still there?");
  }

  @Test
  @DisplayName(
      "(difference) not reply to sender if replyWhileStopped is NOT specified: stashed, not dead"
          + " letters")
  void withoutAHandlerMessagesAreStashed() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), onFailure(events)));
    probe.expectMessage("started");
    actor.tell("boom");
    events.expectRestartScheduled();
    actor.tell("later");
    probe.expectNoMessage(Duration.ofMillis(100)); // no reply during the backoff
    events.advanceToRestart(kit.time());
    probe.expectMessage("started");
    probe.expectMessage("later"); // delivered after the restart
  }

  @Test
  @DisplayName("stop restarting the child after reaching maxNrOfRetries limit (Backoff.onStop)")
  void maxNrOfRetriesOnStop() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), onStop(events).withMaxRestarts(2)));
    for (int i = 1; i <= 2; i++) {
      probe.expectMessage("started");
      actor.tell("quit");
      assertEquals(i, events.expectRestartScheduled().attempt());
      events.advanceToRestart(kit.time());
      events.expectRestarted();
    }
    probe.expectMessage("started");
    actor.tell("quit");
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, events.expectGaveUp().reason());
    probe.expectTerminated(actor);
  }

  @Test
  @DisplayName("stop restarting the child after reaching maxNrOfRetries limit (Backoff.onFailure)")
  void maxNrOfRetriesOnFailure() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), onFailure(events).withMaxRestarts(2)));
    for (int i = 1; i <= 2; i++) {
      probe.expectMessage("started");
      actor.tell("boom");
      assertEquals(i, events.expectRestartScheduled().attempt());
      events.advanceToRestart(kit.time());
      events.expectRestarted();
    }
    probe.expectMessage("started");
    actor.tell("boom");
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, events.expectGaveUp().reason());
    probe.expectTerminated(actor);
  }

  @Test
  @DisplayName("stop restarting the child if final stop message received (Backoff.onStop)")
  void finalStopMessageReceived() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe),
                onStop(events).withMaxRestarts(100).withFinalStopMessage(m -> m.equals("stop"))));
    probe.expectMessage("started");
    actor.tell("stop");
    probe.expectMessage("stop");
    actor.tell("quit"); // classic: c1 ! PoisonPill
    probe.expectTerminated(actor);
  }

  @Test
  @DisplayName("supervisor must not stop when final stop message has not been received")
  void finalStopMessageNotReceived() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe),
                onStop(events).withMaxRestarts(100).withFinalStopMessage(m -> m.equals("stop"))));
    probe.expectMessage("started");
    actor.tell("quit");
    events.expectRestartScheduled();
    actor.tell("ping"); // stashed (classic: dead letters); the actor does not stop
    probe.expectNoMessage(Duration.ofMillis(100));
    actor.tell("stop"); // the final stop message during the backoff stops it at once
    probe.expectTerminated(actor);
    assertEquals(1, events.expectEvent(BackoffEvent.StoppedDuringBackoff.class).droppedMessages());
  }

  // ------------------------------------------------------------------
  // BackoffOnRestartSupervisorSpec

  @Test
  @DisplayName("BackoffOnRestartSupervisor: terminate when child terminates")
  void terminateWhenChildTerminates() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), onFailure(events)));
    probe.expectMessage("started");
    actor.tell("quit"); // "DIE"
    probe.expectTerminated(actor);
  }

  @Test
  @DisplayName("BackoffOnRestartSupervisor: restart the child with an exponential back off")
  void restartWithAnExponentialBackOff() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe),
                BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(10))
                    .withJitter(Jitter.none())
                    .withResetAfter(Duration.ofHours(1))
                    .withListener(events.listener())));
    probe.expectMessage("started");
    long expected = 200;
    for (int i = 1; i <= 4; i++) { // 200, 400, 800, 1600 ms
      actor.tell("boom");
      assertEquals(Duration.ofMillis(expected), events.expectRestartScheduled().delay());
      events.advanceToRestart(kit.time());
      events.expectRestarted();
      probe.expectMessage("started");
      expected *= 2;
    }
  }

  @Test
  @DisplayName(
      "BackoffOnRestartSupervisor: stop on exceptions as dictated by the supervisor strategy")
  void stopOnExceptionsAsDictated() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(probe), onFailure(events).withStopOn(IllegalStateException.class)));
    probe.expectMessage("started");
    actor.tell("boom"); // "THROW_STOPPING_EXCEPTION"
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, events.expectGaveUp().reason());
    probe.expectTerminated(actor);
  }
}
