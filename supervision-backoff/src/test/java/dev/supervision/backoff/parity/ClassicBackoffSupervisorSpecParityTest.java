package dev.supervision.backoff.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.Supervised;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
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

  /** Spawns the classic child under a policy made for its event probe; it has started. */
  static Supervised start(Function<BackoffProbe, BackoffPolicy> policy) {
    return Supervised.start(kit, ClassicBackoffSupervisorSpecParityTest::child, policy);
  }

  @Test
  @DisplayName("start child again when it stops when using `Backoff.onStop`")
  void startChildAgainWhenItStops() {
    Supervised s = start(ClassicBackoffSupervisorSpecParityTest::onStop);
    s.tell("quit"); // classic: c1 ! PoisonPill; here the child stops itself
    assertTrue(s.events().expectRestartScheduled().afterStop());
    s.events().advanceToRestart(kit.time());
    s.probe().expectMessage("started");
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
    for (Function<BackoffProbe, BackoffPolicy> policy :
        List.<Function<BackoffProbe, BackoffPolicy>>of(
            ClassicBackoffSupervisorSpecParityTest::onStop,
            ClassicBackoffSupervisorSpecParityTest::onFailure)) {
      Supervised s = start(policy);
      s.tell("hello-there");
      s.probe().expectMessage("hello-there");
    }
  }

  @Test
  @DisplayName("support default stopping strategy when using `Backoff.onStop`")
  void supportDefaultStoppingStrategyWithOnStop() {
    Supervised s = start(ClassicBackoffSupervisorSpecParityTest::onStop);
    s.tell("boom"); // a failure is restarted too
    assertEquals(1, s.events().expectRestartScheduled().attempt()); // RestartCount(1)
    s.events().advanceToRestart(kit.time());
    s.probe().expectMessage("started");
  }

  @Test
  @DisplayName("support manual reset")
  void supportManualReset() {
    for (Function<BackoffProbe, BackoffPolicy> policy :
        List.<Function<BackoffProbe, BackoffPolicy>>of(
            events -> onStop(events).withManualReset(),
            events -> onFailure(events).withManualReset())) {
      Supervised s = start(policy);
      s.tell("boom");
      assertEquals(1, s.events().expectRestartScheduled().attempt()); // RestartCount(1)
      s.events().advanceToRestart(kit.time());
      s.events().expectRestarted();
      s.probe().expectMessage("started");
      s.tell("hello"); // the child resets
      s.probe().expectMessage("hello");
      assertEquals(1, s.events().expectReset().attempt()); // RestartCount(0)
      s.tell("boom");
      assertEquals(1, s.events().expectRestartScheduled().attempt()); // counted from 0 again
      kit.testKit().stop(s.actor());
      s.events().expectEvent(BackoffEvent.StoppedDuringBackoff.class);
    }
  }

  /** Fails the actor, then sends {@code message} during the backoff, which {@code handler} gets. */
  private static void handledWhileBackingOff(String message, String handlerGets, String reply) {
    TestProbe<String> handler = kit.createTestProbe();
    Supervised s =
        start(
            events ->
                onFailure(events)
                    .withHandlerWhileBackingOff(
                        (m, untilRestart) -> {
                          handler.ref().tell(reply == null ? (String) m : reply);
                          return true;
                        }));
    s.tell("boom");
    s.events().expectRestartScheduled();
    s.tell(message);
    handler.expectMessage(handlerGets);
  }

  @Test
  @DisplayName("reply to sender if replyWhileStopped is specified")
  void replyToSenderWhileStopped() {
    handledWhileBackingOff("boom", "child was stopped", "child was stopped");
  }

  @Test
  @DisplayName("use provided actor while stopped and withHandlerWhileStopped is specified")
  void useProvidedActorWhileStopped() {
    handledWhileBackingOff("still there?", "still there?", null); // forwarded
  }

  @Test
  @DisplayName(
      "(difference) not reply to sender if replyWhileStopped is NOT specified: stashed, not dead"
          + " letters")
  void withoutAHandlerMessagesAreStashed() {
    Supervised s = start(ClassicBackoffSupervisorSpecParityTest::onFailure);
    s.tell("boom");
    s.events().expectRestartScheduled();
    s.tell("later");
    s.probe().expectNoMessage(Duration.ofMillis(100)); // no reply during the backoff
    s.events().advanceToRestart(kit.time());
    s.probe().expectMessage("started");
    s.probe().expectMessage("later"); // delivered after the restart
  }

  /** Two restarts after {@code how}, then the third {@code how} gives up. */
  private static void givesUpAfterTwoRestarts(
      String how, Function<BackoffProbe, BackoffPolicy> policy) {
    Supervised s = start(events -> policy.apply(events).withMaxRestarts(2));
    for (int i = 1; i <= 2; i++) {
      s.tell(how);
      assertEquals(i, s.events().expectRestartScheduled().attempt());
      s.events().advanceToRestart(kit.time());
      s.events().expectRestarted();
      s.probe().expectMessage("started");
    }
    s.tell(how);
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, s.events().expectGaveUp().reason());
    s.expectTerminated();
  }

  @Test
  @DisplayName("stop restarting the child after reaching maxNrOfRetries limit (Backoff.onStop)")
  void maxNrOfRetriesOnStop() {
    givesUpAfterTwoRestarts("quit", ClassicBackoffSupervisorSpecParityTest::onStop);
  }

  @Test
  @DisplayName("stop restarting the child after reaching maxNrOfRetries limit (Backoff.onFailure)")
  void maxNrOfRetriesOnFailure() {
    givesUpAfterTwoRestarts("boom", ClassicBackoffSupervisorSpecParityTest::onFailure);
  }

  /** {@code onStop} with up to 100 restarts and "stop" as its final stop message. */
  private static Supervised withFinalStopMessage() {
    return start(
        events -> onStop(events).withMaxRestarts(100).withFinalStopMessage(m -> m.equals("stop")));
  }

  @Test
  @DisplayName("stop restarting the child if final stop message received (Backoff.onStop)")
  void finalStopMessageReceived() {
    Supervised s = withFinalStopMessage();
    s.tell("stop");
    s.probe().expectMessage("stop");
    s.tell("quit"); // classic: c1 ! PoisonPill
    s.expectTerminated();
  }

  @Test
  @DisplayName("supervisor must not stop when final stop message has not been received")
  void finalStopMessageNotReceived() {
    Supervised s = withFinalStopMessage();
    s.tell("quit");
    s.events().expectRestartScheduled();
    s.tell("ping"); // stashed (classic: dead letters); the actor does not stop
    s.probe().expectNoMessage(Duration.ofMillis(100));
    s.tell("stop"); // the final stop message during the backoff stops it at once
    s.expectTerminated();
    assertEquals(
        1, s.events().expectEvent(BackoffEvent.StoppedDuringBackoff.class).droppedMessages());
  }

  // ------------------------------------------------------------------
  // BackoffOnRestartSupervisorSpec

  @Test
  @DisplayName("BackoffOnRestartSupervisor: terminate when child terminates")
  void terminateWhenChildTerminates() {
    Supervised s = start(ClassicBackoffSupervisorSpecParityTest::onFailure);
    s.tell("quit"); // "DIE"
    s.expectTerminated();
  }

  @Test
  @DisplayName("BackoffOnRestartSupervisor: restart the child with an exponential back off")
  void restartWithAnExponentialBackOff() {
    Supervised s =
        start(
            events ->
                BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(10))
                    .withJitter(Jitter.none())
                    .withResetAfter(Duration.ofHours(1))
                    .withListener(events.listener()));
    long expected = 200;
    for (int i = 1; i <= 4; i++) { // 200, 400, 800, 1600 ms
      s.tell("boom");
      assertEquals(Duration.ofMillis(expected), s.events().expectRestartScheduled().delay());
      s.events().advanceToRestart(kit.time());
      s.events().expectRestarted();
      s.probe().expectMessage("started");
      expected *= 2;
    }
  }

  @Test
  @DisplayName(
      "BackoffOnRestartSupervisor: stop on exceptions as dictated by the supervisor strategy")
  void stopOnExceptionsAsDictated() {
    Supervised s = start(events -> onFailure(events).withStopOn(IllegalStateException.class));
    s.tell("boom"); // "THROW_STOPPING_EXCEPTION"
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, s.events().expectGaveUp().reason());
    s.expectTerminated();
  }
}
