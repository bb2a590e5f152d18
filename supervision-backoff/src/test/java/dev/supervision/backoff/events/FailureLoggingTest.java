package dev.supervision.backoff.events;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;

/** Log lines of restarted failures: their level, the critical level, and what each line names. */
final class FailureLoggingTest {

  // created per class run (not in a static initializer), so that a tool that runs the class again
  // in
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static final BackoffPolicy POLICY =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
          .withJitter(Jitter.none())
          .withResetAfter(Duration.ofHours(1));

  /** The exact wording: actor path, attempt, delay, cause. */
  private static String line(ActorRef<?> actor, int attempt, long delayMs) {
    return "Supervised actor \\["
        + java.util.regex.Pattern.quote(actor.path().toString())
        + "\\] failed \\(attempt "
        + attempt
        + "\\), restarting in "
        + delayMs
        + " ms: "
        + java.util.regex.Pattern.quote(TestChild.Boom.class.getName() + ": fail");
  }

  private ActorRef<String> spawn(TestProbe<String> probe, BackoffPolicy policy) {
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    return actor;
  }

  /** Fails, checks the log line at {@code level}, then lets the restart happen. */
  private void failAndExpect(
      ActorRef<String> actor, TestProbe<String> probe, Level level, int attempt, long delayMs) {
    LoggingTestKit.empty()
        .withLogLevel(level)
        .withMessageRegex(line(actor, attempt, delayMs))
        .withCause(TestChild.Boom.class)
        .expect(
            kit.system(),
            () -> {
              actor.tell("fail");
              probe.expectMessage("preRestart");
              return null;
            });
    kit.time().timePasses(Duration.ofMillis(delayMs));
    probe.expectMessage("started");
  }

  @Test
  void restartedFailureIsLoggedAtWarnWithActorAttemptDelayAndCause() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor = spawn(probe, POLICY);
    failAndExpect(actor, probe, Level.WARN, 1, 100);
    failAndExpect(actor, probe, Level.WARN, 2, 200);
    kit.testKit().stop(actor);
  }

  @Test
  void logLevelIsTheOneThePolicyPicks() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor = spawn(probe, POLICY.withLogLevel(Level.INFO));
    failAndExpect(actor, probe, Level.INFO, 1, 100);
    kit.testKit().stop(actor);
  }

  @Test
  void criticalLevelAfterTheConfiguredNumberOfConsecutiveFailures() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor = spawn(probe, POLICY.withCriticalLogLevel(Level.ERROR, 2));
    failAndExpect(actor, probe, Level.WARN, 1, 100);
    failAndExpect(actor, probe, Level.WARN, 2, 200);
    failAndExpect(actor, probe, Level.ERROR, 3, 400);
    failAndExpect(actor, probe, Level.ERROR, 4, 800);
    kit.testKit().stop(actor);
  }

  @Test
  void criticalLevelFromConfig() {
    BackoffPolicy policy =
        BackoffPolicy.fromConfig(
            com.typesafe.config.ConfigFactory.parseString(
                "w { min-backoff = 100ms, max-backoff = 1s, jitter = none, reset-after = 1h,"
                    + " log-level = info, critical-log-level = error, critical-log-level-after = 1 }"),
            "w");
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor = spawn(probe, policy);
    failAndExpect(actor, probe, Level.INFO, 1, 100);
    failAndExpect(actor, probe, Level.ERROR, 2, 200);
    kit.testKit().stop(actor);
  }

  @Test
  void noLinesWhenLoggingIsDisabled() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor = spawn(probe, POLICY.withLoggingEnabled(false));
    LoggingTestKit.messageContains("Supervised actor")
        .withOccurrences(0)
        .expect(
            kit.system(),
            () -> {
              actor.tell("fail");
              probe.expectMessage("preRestart");
              kit.time().timePasses(Duration.ofMillis(100));
              probe.expectMessage("started");
              return null;
            });
    kit.testKit().stop(actor);
  }
}
