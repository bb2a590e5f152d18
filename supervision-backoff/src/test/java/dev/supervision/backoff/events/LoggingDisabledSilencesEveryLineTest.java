package dev.supervision.backoff.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.SupervisorLines;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code withLoggingEnabled(false)} silences every line of the supervisor: the failure, the restart,
 * a PreRestart handler that throws (before, an ERROR line with a stack trace), a listener that
 * throws, a broken RetryAfter hint, a broken jitter, giving up.
 */
final class LoggingDisabledSilencesEveryLineTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  static final class BadHint extends RuntimeException implements RetryAfter {
    BadHint() {
      super("bad hint", null, false, false);
    }

    @Override
    public Duration retryAfter() {
      throw new IllegalStateException("no hint");
    }
  }

  /** "started"; "fail" throws a failure whose hint throws; its PreRestart handler throws too. */
  static Behavior<String> child(ActorRef<String> probe) {
    return Behaviors.setup(
        ctx -> {
          probe.tell("started");
          return Behaviors.receive(String.class)
              .onMessageEquals(
                  "fail",
                  () -> {
                    throw new BadHint();
                  })
              .onSignal(
                  PreRestart.class,
                  s -> {
                    probe.tell("preRestart");
                    throw new IllegalStateException("cleanup failed");
                  })
              .build();
        });
  }

  static BackoffPolicy policy(TestProbe<BackoffEvent> events, boolean logging) {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
        .withJitter(
            (step, draw) -> {
              throw new ArithmeticException("broken jitter");
            })
        .withResetAfter(Duration.ofMillis(500))
        .withMaxRestarts(1)
        .withListener(events.ref()::tell)
        .withListener(
            event -> {
              throw new IllegalStateException("broken listener");
            })
        .withLoggingEnabled(logging);
  }

  /** Fails, restarts, resets, fails twice (gives up): every kind of line the supervisor has. */
  private static int linesOfAFullLife(boolean logging, String name) {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      ActorRef<String> actor =
          kit.spawn(BackoffSupervisor.wrap(child(probe.ref()), policy(events, logging)), name);
      probe.expectMessage("started");
      actor.tell("fail");
      probe.expectMessage("preRestart");
      assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
      kit.time().timePasses(Duration.ofMillis(100));
      probe.expectMessage("started");
      assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
      kit.time().timePasses(Duration.ofMillis(500));
      assertInstanceOf(BackoffEvent.BackoffReset.class, events.receiveMessage());
      actor.tell("fail");
      probe.expectMessage("preRestart");
      assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
      kit.time().timePasses(Duration.ofMillis(100));
      probe.expectMessage("started");
      assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
      actor.tell("fail");
      assertInstanceOf(BackoffEvent.GaveUp.class, events.receiveMessage());
      probe.expectTerminated(actor);
      return lines.about(actor).size();
    }
  }

  @Test
  void noLineAtAllWhenLoggingIsDisabled() {
    assertEquals(0, linesOfAFullLife(false, "silent"));
  }

  @Test
  void theSameLifeLogsItsLinesWhenLoggingIsEnabled() {
    // the control: the same run does log (failure, PreRestart, hint, jitter, listener, restart,
    // reset, give-up)
    assertTrue(linesOfAFullLife(true, "chatty") >= 10);
  }
}
