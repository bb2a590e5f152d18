package dev.supervision.backoff.issues;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Aggregated logging ({@code withAggregatedLogging}, on by default for a policy with a budget): a
 * herd of actors that fail together writes one line per cause and second, with the counts and the
 * first failure's stack trace, and each failure at DEBUG. Before, one WARN line with a stack trace
 * per failure.
 */
final class HerdLogLinesTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final int HERD = 200;

  static final class DatabaseDown extends RuntimeException {
    DatabaseDown() {
      super("database down");
    }
  }

  static Behavior<String> child() {
    return Behaviors.setup(
        ctx ->
            Behaviors.receiveMessage(
                m -> {
                  throw new DatabaseDown();
                }));
  }

  static BackoffPolicy policy(TestProbe<BackoffEvent> events) {
    return BackoffPolicy.exponential(Duration.ofSeconds(10), Duration.ofSeconds(20))
        .withJitter(Jitter.none())
        .withListener(events.ref()::tell);
  }

  /** Spawns a herd, fails each once, waits until every failure is handled. */
  static void failTogether(BackoffPolicy policy, TestProbe<BackoffEvent> events) {
    List<ActorRef<String>> herd = new ArrayList<>();
    for (int i = 0; i < HERD; i++) {
      herd.add(kit.spawn(BackoffSupervisor.wrap(child(), policy)));
    }
    herd.forEach(a -> a.tell("query"));
    for (int i = 0; i < HERD; i++) {
      events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    }
  }

  static List<ILoggingEvent> failureLines(SupervisorLines lines, Level level) {
    return lines.all().stream()
        .filter(e -> e.getLevel() == level && e.getFormattedMessage().contains("DatabaseDown"))
        .collect(Collectors.toList());
  }

  @Test
  void aHerdWithABudgetWritesOneLinePerCauseAndSecondAndEachFailureAtDebug() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      failTogether(
          policy(events).withBudget(RestartBudget.of("herd-log", 1000, Duration.ofSeconds(1))),
          events);
      kit.time().timePasses(Duration.ofSeconds(1)); // the window closes
      List<ILoggingEvent> warn = awaitLines(lines, Level.WARN, 1);
      assertEquals(1, warn.size(), () -> "one WARN line for the herd: " + warn);
      String line = warn.get(0).getFormattedMessage();
      assertTrue(
          line.startsWith(HERD + " supervised actors failed " + HERD + " times in 1000 ms"), line);
      assertNotNull(warn.get(0).getThrowableProxy(), "the first failure's stack trace");
      assertEquals(HERD, failureLines(lines, Level.DEBUG).size(), "each failure at DEBUG");

      // the episode goes on: the next window of the same cause has counts only
      TestProbe<BackoffEvent> more = kit.createTestProbe();
      failTogether(
          policy(more).withBudget(RestartBudget.of("herd-log", 1000, Duration.ofSeconds(1))), more);
      kit.time().timePasses(Duration.ofSeconds(1));
      List<ILoggingEvent> again = awaitLines(lines, Level.WARN, 2);
      assertEquals(2, again.size());
      assertNull(again.get(1).getThrowableProxy(), "counts only while the episode lasts");
    }
  }

  @Test
  void withoutABudgetEachFailureHasItsOwnLineAsBefore() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      failTogether(policy(events), events);
      assertEquals(HERD, failureLines(lines, Level.WARN).size());
    }
  }

  @Test
  void loggingDisabledSilencesTheHerdLineToo() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      failTogether(policy(events).withAggregatedLogging(true).withLoggingEnabled(false), events);
      kit.time().timePasses(Duration.ofSeconds(1));
      events.expectNoMessage(Duration.ofMillis(200));
      assertEquals(0, failureLines(lines, Level.WARN).size());
      assertEquals(0, failureLines(lines, Level.DEBUG).size());
    }
  }

  /** Waits up to 3 s for {@code count} herd lines at {@code level}. */
  static List<ILoggingEvent> awaitLines(SupervisorLines lines, Level level, int count) {
    long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    List<ILoggingEvent> found;
    do {
      found =
          lines.all().stream()
              .filter(
                  e ->
                      e.getLevel() == level
                          && e.getFormattedMessage().contains("supervised actors"))
              .collect(Collectors.toList());
      if (found.size() >= count) {
        return found;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    } while (System.nanoTime() < deadline);
    return found;
  }
}
