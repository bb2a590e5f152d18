package dev.supervision.backoff.hints;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxy;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.SupervisorLines;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Failures on the failure path: a {@link RetryAfter} hint that throws and a user {@link Jitter} that
 * throws, returns null or a negative delay cost no restart. The actor is restarted after the
 * policy's own delay (the hint is ignored; the broken jitter is replaced by full jitter for that
 * attempt), one WARN line names what broke, and the actor is never left without a behavior. Before,
 * the exception escaped the supervisor after PreRestart: no restart, and under an outer resume an
 * actor that answered nothing, forever.
 */
final class BrokenHintOrJitterStillRestartsTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /** A 503 whose Retry-After header is an HTTP-date, parsed as a number of seconds. */
  static final class Unavailable extends RuntimeException implements RetryAfter {
    Unavailable() {
      super("503", null, false, false);
    }

    @Override
    public Duration retryAfter() {
      return Duration.ofSeconds(Long.parseLong("Wed, 21 Oct 2015 07:28:00 GMT"));
    }
  }

  static final class Boom extends RuntimeException {
    Boom() {
      super("boom", null, false, false);
    }
  }

  /** A user jitter that breaks in one of three ways. */
  record BrokenJitter(String how) implements Jitter {
    @Override
    public Duration delay(Step step, double draw) {
      switch (how) {
        case "throws":
          throw new ArithmeticException("/ by zero");
        case "null":
          return null;
        default:
          return Duration.ofSeconds(-1);
      }
    }
  }

  /** "started" at each start, "preRestart"; "503" throws {@link Unavailable}, "boom" throws Boom. */
  static Behavior<String> child(ActorRef<String> probe) {
    return Behaviors.setup(
        ctx -> {
          probe.tell("started");
          return Behaviors.receive(String.class)
              .onMessageEquals(
                  "503",
                  () -> {
                    throw new Unavailable();
                  })
              .onMessageEquals(
                  "boom",
                  () -> {
                    throw new Boom();
                  })
              .onMessage(
                  String.class,
                  m -> {
                    probe.tell("got:" + m);
                    return Behaviors.same();
                  })
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

  static BackoffPolicy policy(TestProbe<BackoffEvent> events, Jitter jitter) {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10))
        .withJitter(jitter)
        .withResetAfter(Duration.ofHours(1))
        .withListener(events.ref()::tell);
  }

  static List<ILoggingEvent> warningsNaming(SupervisorLines lines, ActorRef<?> actor, String text) {
    return lines.about(actor, ch.qos.logback.classic.Level.WARN, text);
  }

  @Test
  void aRetryAfterHintThatThrowsIsIgnoredAndThePolicysDelayApplies() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      ActorRef<String> actor =
          kit.spawn(
              BackoffSupervisor.wrap(child(probe.ref()), policy(events, Jitter.none())),
              "hint-throws");
      probe.expectMessage("started");
      actor.tell("503");
      probe.expectMessage("preRestart");
      BackoffEvent.RestartScheduled scheduled =
          assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
      assertEquals(Duration.ofMillis(100), scheduled.delay()); // the policy's own delay
      assertInstanceOf(
          Unavailable.class, scheduled.cause()); // the original failure, not the parser's
      kit.time().timePasses(Duration.ofMillis(100));
      probe.expectMessage("started");
      actor.tell("ping");
      probe.expectMessage("got:ping");
      List<ILoggingEvent> warnings =
          warningsNaming(lines, actor, "RetryAfter hint of " + Unavailable.class.getName());
      assertEquals(
          1, warnings.size(), () -> "one WARN line naming the hint: " + lines.about(actor));
      assertTrue(
          warnings.get(0).getFormattedMessage().contains("NumberFormatException"),
          warnings.get(0)::getFormattedMessage);
      assertEquals(
          NumberFormatException.class.getName(),
          ((ThrowableProxy) warnings.get(0).getThrowableProxy()).getClassName());
    }
  }

  @Test
  void aJitterThatThrowsReturnsNullOrANegativeDelayIsReplacedByFullJitter() {
    for (String how : List.of("throws", "null", "negative")) {
      TestProbe<String> probe = kit.createTestProbe();
      TestProbe<BackoffEvent> events = kit.createTestProbe();
      BrokenJitter jitter = new BrokenJitter(how);
      try (SupervisorLines lines = new SupervisorLines()) {
        ActorRef<String> actor =
            kit.spawn(
                BackoffSupervisor.wrap(child(probe.ref()), policy(events, jitter)),
                "jitter-" + how);
        probe.expectMessage("started");
        for (int attempt = 1; attempt <= 2; attempt++) {
          actor.tell("boom");
          probe.expectMessage("preRestart");
          BackoffEvent.RestartScheduled scheduled =
              assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
          assertEquals(attempt, scheduled.attempt());
          long bound = 100L << (attempt - 1); // full jitter within the exponential bound
          assertTrue(
              !scheduled.delay().isNegative() && scheduled.delay().toMillis() <= bound,
              how + ": " + scheduled);
          kit.time().timePasses(Duration.ofMillis(bound));
          probe.expectMessage("started");
          assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
        }
        List<ILoggingEvent> warnings = warningsNaming(lines, actor, "jitter [" + jitter + "]");
        assertEquals(
            2,
            warnings.size(),
            () -> how + ": one WARN line per broken attempt: " + lines.about(actor));
        String expected =
            switch (how) {
              case "throws" -> "threw java.lang.ArithmeticException: / by zero for attempt 1";
              case "null" -> "returned null for attempt 1";
              default -> "returned a negative delay PT-1S for attempt 1";
            };
        assertTrue(
            warnings.get(0).getFormattedMessage().contains(expected),
            warnings.get(0)::getFormattedMessage);
      }
    }
  }

  @Test
  void underAnOuterResumeABrokenJitterStillLeavesAWorkingActor() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Behavior<String> wrapped =
        BackoffSupervisor.wrap(child(probe.ref()), policy(events, new BrokenJitter("throws")));
    ActorRef<String> actor =
        kit.spawn(
            Behaviors.supervise(wrapped)
                .onFailure(SupervisorStrategy.resume().withLoggingEnabled(false)));
    probe.expectMessage("started");
    actor.tell("boom");
    probe.expectMessage("preRestart");
    assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    actor.tell("ping");
    probe.expectMessage("got:ping");
  }
}
