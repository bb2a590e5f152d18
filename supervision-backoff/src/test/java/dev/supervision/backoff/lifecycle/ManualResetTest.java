package dev.supervision.backoff.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code withManualReset()} and {@code BackoffSupervisor.resetBackoff(ctx)} (classic {@code
 * withManualReset} and {@code BackoffSupervisor.Reset}): the child, not the reset window, says when
 * the count starts over.
 */
final class ManualResetTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration B = Duration.ofMillis(100);
  static final Duration RESET_AFTER = Duration.ofSeconds(1);

  static BackoffPolicy policy(BackoffProbe events) {
    return BackoffPolicy.exponential(B, Duration.ofSeconds(10))
        .withJitter(Jitter.none())
        .withResetAfter(RESET_AFTER)
        .withListener(events.listener());
  }

  /**
   * "started-n" at each start; "fail" throws; "healthy" resets the backoff; "reset-then-fail" asks
   * for a reset and then throws; others are echoed.
   */
  static Behavior<String> child(TestProbe<String> probe) {
    AtomicInteger starts = new AtomicInteger();
    return Behaviors.setup(
        ctx -> {
          probe.ref().tell("started-" + starts.incrementAndGet());
          return Behaviors.receive(String.class)
              .onMessageEquals(
                  "fail",
                  () -> {
                    throw new IllegalStateException("fail");
                  })
              .onMessageEquals(
                  "reset-then-fail",
                  () -> {
                    BackoffSupervisor.resetBackoff(ctx);
                    throw new IllegalStateException("failed after asking for a reset");
                  })
              .onMessageEquals(
                  "healthy",
                  () -> {
                    BackoffSupervisor.resetBackoff(ctx);
                    probe.ref().tell("reset-asked");
                    return Behaviors.same();
                  })
              .onMessage(
                  String.class,
                  m -> {
                    probe.ref().tell("got:" + m);
                    return Behaviors.same();
                  })
              .build();
        });
  }

  static void failAndRestart(
      ActorRef<String> actor, TestProbe<String> probe, BackoffProbe events, int attempt) {
    actor.tell("fail");
    assertEquals(attempt, events.expectRestartScheduled().attempt());
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-" + (attempt + 1));
  }

  @Test
  void withManualResetTheResetWindowNoLongerResetsTheCount() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events).withManualReset()));
    probe.expectMessage("started-1");
    failAndRestart(actor, probe, events, 1);
    kit.time().timePasses(RESET_AFTER.multipliedBy(3));
    events.expectNoEvent(Duration.ofMillis(200));
    actor.tell("fail");
    BackoffEvent.RestartScheduled second = events.expectRestartScheduled();
    assertEquals(2, second.attempt()); // not reset: the second delay of the schedule
    assertEquals(B.multipliedBy(2), second.delay());
  }

  @Test
  void theChildResetsTheCountAtOnceWithABackoffResetEvent() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events).withManualReset()));
    probe.expectMessage("started-1");
    failAndRestart(actor, probe, events, 1);
    failAndRestart(actor, probe, events, 2);
    actor.tell("healthy");
    probe.expectMessage("reset-asked");
    assertEquals(2, events.expectReset().attempt());
    actor.tell("fail");
    BackoffEvent.RestartScheduled next = events.expectRestartScheduled();
    assertEquals(1, next.attempt()); // the first delay again
    assertEquals(B, next.delay());
  }

  /**
   * A reset asked by an incarnation that failed since reaches the supervisor during the backoff: it
   * is ignored, and the count goes on.
   */
  @Test
  void aResetAskedByTheIncarnationThatThenFailedIsIgnored() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events).withManualReset()));
    probe.expectMessage("started-1");
    failAndRestart(actor, probe, events, 1);
    actor.tell("reset-then-fail");
    assertEquals(2, events.expectRestartScheduled().attempt());
    events.advanceToRestart(kit.time());
    events.expectRestarted(); // no BackoffReset before it
    probe.expectMessage("started-3");
    actor.tell("fail");
    assertEquals(3, events.expectRestartScheduled().attempt()); // not reset
  }

  @Test
  void withoutManualResetTheChildsResetCancelsThePendingOne() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events)));
    probe.expectMessage("started-1");
    failAndRestart(actor, probe, events, 1);
    actor.tell("healthy");
    probe.expectMessage("reset-asked");
    assertEquals(1, events.expectReset().attempt());
    kit.time().timePasses(RESET_AFTER);
    events.expectNoEvent(Duration.ofMillis(200)); // no second reset from the window
  }

  @Test
  void aResetWithACountOfZeroReportsNothing() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events).withManualReset()));
    probe.expectMessage("started-1");
    actor.tell("healthy");
    probe.expectMessage("reset-asked");
    actor.tell("after");
    probe.expectMessage("got:after");
    events.expectNoEvent(Duration.ofMillis(100));
  }

  @Test
  void withoutASupervisorResetBackoffDoesNothing() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor = kit.spawn(child(probe));
    probe.expectMessage("started-1");
    actor.tell("healthy");
    probe.expectMessage("reset-asked");
    actor.tell("after"); // the unhandled signal did not hurt the actor
    probe.expectMessage("got:after");
  }

  @Test
  void everyLayerOfNestedSupervisorsResets() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe inner = kit.createProbe();
    BackoffProbe outer = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                BackoffSupervisor.wrap(
                    child(probe), policy(inner).withManualReset().withStopOn(Error.class)),
                policy(outer).withManualReset()));
    probe.expectMessage("started-1");
    failAndRestart(actor, probe, inner, 1);
    actor.tell("healthy");
    probe.expectMessage("reset-asked");
    assertEquals(1, inner.expectReset().attempt());
    outer.expectNoEvent(Duration.ofMillis(100)); // its count was 0: nothing to report
  }
}
