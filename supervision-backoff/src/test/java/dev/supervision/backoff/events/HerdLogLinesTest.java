package dev.supervision.backoff.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.ChildStopped;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.ManualTimers;
import dev.supervision.backoff.testsupport.SupervisorLines;
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

  /** The herd log's window. */
  static final Duration WINDOW = Duration.ofSeconds(1);

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

  /**
   * Lets the herd log's window pass. A supervisor reports its line to the herd log's actor before
   * its event, so the reports are in that actor's mailbox ahead of the window's end; but the window
   * is put on the clock by that actor when it handles the first report of a window (or the end of
   * the window before): wait until it is on the clock, one window from now, or the step would pass
   * before it and the window would end a step late.
   */
  static void theWindowPasses() {
    ManualTimers.awaitDueIn(kit.system(), WINDOW);
    kit.time().timePasses(WINDOW);
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
      ILoggingEvent herdLine = oneHerdLineAfterTheWindow(lines, "failed");
      assertNotNull(herdLine.getThrowableProxy(), "the first failure's stack trace");
      assertEquals(HERD, failureLines(lines, Level.DEBUG).size(), "each failure at DEBUG");

      // the episode goes on: the next window of the same cause has counts only
      TestProbe<BackoffEvent> more = kit.createTestProbe();
      failTogether(
          policy(more).withBudget(RestartBudget.of("herd-log", 1000, Duration.ofSeconds(1))), more);
      theWindowPasses();
      List<ILoggingEvent> again = awaitLines(lines, Level.WARN, 2);
      assertEquals(2, again.size());
      assertNull(again.get(1).getThrowableProxy(), "counts only while the episode lasts");

      // a second without the cause ends the episode: when it returns, it is new again
      theWindowPasses();
      TestProbe<BackoffEvent> later = kit.createTestProbe();
      failTogether(
          policy(later).withBudget(RestartBudget.of("herd-log", 1000, Duration.ofSeconds(1))),
          later);
      theWindowPasses();
      List<ILoggingEvent> returned = awaitLines(lines, Level.WARN, 3);
      assertEquals(3, returned.size());
      assertNotNull(returned.get(2).getThrowableProxy(), "a new episode: the stack trace again");
    }
  }

  @Test
  void twoCausesInOneSecondAreOneLineEach() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        policy(events).withBudget(RestartBudget.of("herd-log-causes", 1000, Duration.ofSeconds(1)));
    Behavior<String> child =
        Behaviors.receiveMessage(
            m -> {
              throw m.equals("cache")
                  ? new UnsupportedOperationException("cache down")
                  : new IllegalStateException("queue full");
            });
    try (SupervisorLines lines = new SupervisorLines()) {
      for (int i = 0; i < 20; i++) {
        kit.spawn(BackoffSupervisor.wrap(child, policy)).tell(i % 2 == 0 ? "cache" : "queue");
      }
      for (int i = 0; i < 20; i++) {
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
      }
      theWindowPasses(); // the window closes
      List<String> warn =
          awaitLines(lines, Level.WARN, 2).stream()
              .map(ILoggingEvent::getFormattedMessage)
              .sorted()
              .collect(Collectors.toList());
      assertEquals(2, warn.size(), warn::toString);
      assertTrue(warn.get(0).startsWith("10 supervised actors failed 10 times"), warn::toString);
      assertTrue(warn.get(0).contains("java.lang.IllegalStateException"), warn::toString);
      assertTrue(warn.get(1).startsWith("10 supervised actors failed 10 times"), warn::toString);
      assertTrue(warn.get(1).contains("java.lang.UnsupportedOperationException"), warn::toString);
      theWindowPasses(); // a quiet second ends both episodes
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
      kit.time().timePasses(WINDOW); // nothing reported, so no window is put on the clock
      events.expectNoMessage(Duration.ofMillis(200));
      assertEquals(0, failureLines(lines, Level.WARN).size());
      assertEquals(0, failureLines(lines, Level.DEBUG).size());
    }
  }

  static Behavior<String> stopsItself() {
    return Behaviors.receiveMessage(m -> Behaviors.stopped());
  }

  @Test
  void aHerdThatGivesUpWritesOneErrorLinePerCauseAndReasonAndEachAtDebug() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      BackoffPolicy policy =
          policy(events).withAggregatedLogging(true).withStopOn(t -> t instanceof DatabaseDown);
      List<ActorRef<String>> herd = new ArrayList<>();
      for (int i = 0; i < HERD; i++) {
        herd.add(kit.spawn(BackoffSupervisor.wrap(child(), policy)));
      }
      herd.forEach(a -> a.tell("query"));
      for (int i = 0; i < HERD; i++) {
        events.expectMessageClass(BackoffEvent.GaveUp.class);
      }
      theWindowPasses(); // the window closes
      List<ILoggingEvent> error = awaitLines(lines, Level.ERROR, 1);
      assertEquals(1, error.size(), () -> "one ERROR line for the herd: " + error);
      String line = error.get(0).getFormattedMessage();
      assertTrue(
          line.startsWith(
              HERD + " supervised actors gave up " + HERD + " times in 1000 ms and stopped"),
          line);
      assertTrue(line.contains("PERMANENT_FAILURE") && line.contains("DatabaseDown"), line);
      assertNotNull(error.get(0).getThrowableProxy(), "the first failure's stack trace");
      assertEquals(0, failureLines(lines, Level.ERROR).size() - 1, "no ERROR line per actor");
      assertEquals(HERD, failureLines(lines, Level.DEBUG).size(), "each give-up at DEBUG");
    }
  }

  @Test
  void aHerdWhoseChildrenStopThemselvesWritesOneLinePerSecondAndEachStopAtDebug() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      BackoffPolicy policy = policy(events).withAggregatedLogging(true).withRestartOnStop(true);
      List<ActorRef<String>> herd = new ArrayList<>();
      for (int i = 0; i < HERD; i++) {
        herd.add(kit.spawn(BackoffSupervisor.wrap(stopsItself(), policy)));
      }
      herd.forEach(a -> a.tell("done"));
      for (int i = 0; i < HERD; i++) {
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
      }
      ILoggingEvent herdLine = oneHerdLineAfterTheWindow(lines, "stopped themselves");
      assertNull(herdLine.getThrowableProxy(), "a stop has no stack trace");
      long own =
          lines.all().stream()
              .filter(e -> e.getFormattedMessage().contains("stopped itself"))
              .filter(e -> e.getLevel() == Level.DEBUG)
              .count();
      assertEquals(HERD, own, "each stop at DEBUG");
      assertEquals(
          0,
          lines.all().stream()
              .filter(e -> e.getFormattedMessage().contains("stopped itself"))
              .filter(e -> e.getLevel() != Level.DEBUG)
              .count());
    }
  }

  /**
   * A {@code ChildStopped} the children throw themselves, under restart on stop, is a failure: the
   * herd's line counts failures of that cause, and no event says a stop.
   */
  @Test
  void aHerdWhoseChildrenThrowChildStoppedWritesAFailuresLine() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    try (SupervisorLines lines = new SupervisorLines()) {
      BackoffPolicy policy = policy(events).withAggregatedLogging(true).withRestartOnStop(true);
      Behavior<String> throwsChildStopped =
          Behaviors.receiveMessage(
              m -> {
                throw new ChildStopped();
              });
      List<ActorRef<String>> herd = new ArrayList<>();
      for (int i = 0; i < HERD; i++) {
        herd.add(kit.spawn(BackoffSupervisor.wrap(throwsChildStopped, policy)));
      }
      herd.forEach(a -> a.tell("query"));
      for (int i = 0; i < HERD; i++) {
        assertFalse(
            events.expectMessageClass(BackoffEvent.RestartScheduled.class).afterStop(),
            "a failure, not a stop");
      }
      String line = oneHerdLineAfterTheWindow(lines, "failed").getFormattedMessage();
      assertTrue(line.contains(ChildStopped.class.getName()), line);
    }
  }

  /**
   * Lets the herd log's one-second window pass and expects its one WARN line: the whole herd {@code
   * what} ("failed", "stopped themselves") once each in 1000 ms.
   */
  static ILoggingEvent oneHerdLineAfterTheWindow(SupervisorLines lines, String what) {
    theWindowPasses(); // the window closes
    List<ILoggingEvent> warn = awaitLines(lines, Level.WARN, 1);
    assertEquals(1, warn.size(), () -> "one WARN line for the herd: " + warn);
    String line = warn.get(0).getFormattedMessage();
    assertTrue(
        line.startsWith(HERD + " supervised actors " + what + " " + HERD + " times in 1000 ms"),
        line);
    return warn.get(0);
  }

  /**
   * Waits for {@code count} herd lines at {@code level} (up to 20 s: the herd log writes them on
   * its own actor, after the window's timer fired on the test thread; a loaded machine can take a
   * while, and a passing test waits only as long as that takes).
   */
  static List<ILoggingEvent> awaitLines(SupervisorLines lines, Level level, int count) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
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
