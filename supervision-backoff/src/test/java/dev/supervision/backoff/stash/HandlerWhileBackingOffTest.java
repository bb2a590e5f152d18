package dev.supervision.backoff.stash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.SupervisorLines;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code withHandlerWhileBackingOff} (classic {@code withReplyWhileStopped} / {@code
 * withHandlerWhileStopped}): the handler sees every message of a backoff with the time until the
 * restart; {@code true} answers it (not stashed), {@code false} stashes it; a handler that throws
 * costs no restart and loses no message. A running actor never calls it.
 */
final class HandlerWhileBackingOffTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration B = Duration.ofMillis(100);

  /** What the handler saw: the message and the time until the restart. */
  record Seen(Object message, Duration untilRestart) {}

  /** Answers messages starting with "q", stashes the others; tells {@code seen} each call. */
  static BackoffHandler answering(TestProbe<Seen> seen) {
    return (message, untilRestart) -> {
      seen.ref().tell(new Seen(message, untilRestart));
      return ((String) message).startsWith("q");
    };
  }

  static BackoffPolicy policy(BackoffProbe events, BackoffHandler handler) {
    return BackoffPolicy.exponential(B, Duration.ofSeconds(10))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1))
        .withHandlerWhileBackingOff(handler)
        .withListener(events.listener());
  }

  /** A failure whose Retry-After hint is 500 ms. */
  static final class Unavailable extends RuntimeException implements RetryAfter {
    Unavailable() {
      super("503", null, false, false);
    }

    @Override
    public Duration retryAfter() {
      return HINT;
    }
  }

  static final Duration HINT = Duration.ofMillis(500);

  /** "started-n" at each start; "fail" throws; "fail-503" throws with a hint; other messages are echoed as "got:m". */
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
                  "fail-503",
                  () -> {
                    throw new Unavailable();
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

  @Test
  void answeredMessagesAreNotStashedTheOthersAre() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<Seen> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events, answering(seen))));
    probe.expectMessage("started-1");
    actor.tell("q-before"); // running: the child gets it, the handler is not called
    probe.expectMessage("got:q-before");
    actor.tell("fail");
    events.expectRestartScheduled();
    actor.tell("q1");
    actor.tell("stash-me");
    assertEquals(new Seen("q1", B), seen.receiveMessage());
    assertEquals(new Seen("stash-me", B), seen.receiveMessage());
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-2");
    probe.expectMessage("got:stash-me"); // q1 was answered by the handler: not replayed
    actor.tell("q-after");
    probe.expectMessage("got:q-after");
    seen.expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  void untilRestartIsTheDelayOfThisBackoff() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<Seen> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events, answering(seen))));
    probe.expectMessage("started-1");
    actor.tell("fail");
    events.expectRestartScheduled();
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    probe.expectMessage("started-2");
    actor.tell("fail");
    assertEquals(B.multipliedBy(2), events.expectRestartScheduled().delay());
    actor.tell("q");
    assertEquals(B.multipliedBy(2), seen.receiveMessage().untilRestart());
  }

  @Test
  void whileTheRestartWaitsForABudgetsPermitUntilRestartIsMinBackoff() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<Seen> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    // one permit per hour: the first restart takes it, the second waits
    BackoffPolicy policy =
        policy(events, answering(seen))
            .withBudget(RestartBudget.of("handler-budget", 1, Duration.ofHours(1)));
    ActorRef<String> first = kit.spawn(BackoffSupervisor.wrap(child(probe), policy));
    probe.expectMessage("started-1");
    first.tell("fail");
    events.expectRestartScheduled(first);
    events.advanceToRestart(kit.time());
    events.expectWaitingForPermit(first);
    events.expectPermitGranted(first);
    probe.expectMessage("started-2");

    TestProbe<String> probe2 = kit.createTestProbe();
    ActorRef<String> second = kit.spawn(BackoffSupervisor.wrap(child(probe2), policy));
    probe2.expectMessage("started-1");
    second.tell("fail-503");
    assertEquals(HINT, events.expectRestartScheduled(second).delay());
    second.tell("q1");
    assertEquals(new Seen("q1", HINT), seen.receiveMessage()); // the delay, with its hint
    events.advanceToRestart(kit.time());
    events.expectWaitingForPermit(second);
    second.tell("q2");
    assertEquals(new Seen("q2", B), seen.receiveMessage()); // minBackoff: the permit may come soon
  }

  @Test
  void aHandlerThatThrowsCostsNoRestartAndLosesNoMessage() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    BackoffHandler broken =
        (message, untilRestart) -> {
          throw new IllegalStateException("broken handler");
        };
    try (SupervisorLines lines = new SupervisorLines()) {
      ActorRef<String> actor =
          kit.spawn(BackoffSupervisor.wrap(child(probe), policy(events, broken)), "broken-handler");
      probe.expectMessage("started-1");
      actor.tell("fail");
      events.expectRestartScheduled();
      actor.tell("kept");
      events.advanceToRestart(kit.time());
      events.expectRestarted();
      probe.expectMessage("started-2");
      probe.expectMessage("got:kept"); // stashed, delivered
      events.expectNoEvent(Duration.ofMillis(100)); // no second restart
      List<ILoggingEvent> warnings =
          lines.about(actor, ch.qos.logback.classic.Level.WARN, "handler while backing off");
      assertEquals(1, warnings.size(), () -> "one WARN line: " + lines.about(actor));
      assertTrue(warnings.get(0).getFormattedMessage().contains("the message is stashed"));
    }
  }
}
