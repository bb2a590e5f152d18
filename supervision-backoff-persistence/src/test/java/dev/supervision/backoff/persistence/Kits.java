package dev.supervision.backoff.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;

/** What the persistence tests share: the actor system's configuration, the policy, the waits. */
final class Kits {

  private Kits() {}

  static final Duration MIN = Duration.ofSeconds(1);
  static final Duration MAX = Duration.ofSeconds(4);
  static final Duration RESET = Duration.ofSeconds(30);
  private static final AtomicInteger ids = new AtomicInteger();

  /**
   * The persistence test kit's journal and snapshot store, and a durable state store whose next
   * reads and writes can be made to fail ({@code BackoffTestKit} adds ManualTime).
   */
  static Config config() {
    return PersistenceTestKitPlugin.getInstance()
        .config()
        .withFallback(PersistenceTestKitSnapshotPlugin.getInstance().config())
        .withFallback(
            ConfigFactory.parseString(
                "pekko.persistence.state.plugin = \"flaky-state-store\"\n"
                    + "flaky-state-store.class = \""
                    + FlakyStateStore.Provider.class.getName()
                    + "\"\n"));
  }

  /** A persistence id no other test uses. */
  static String freshId(String prefix) {
    return prefix + "-" + ids.incrementAndGet();
  }

  /** Full jitter between 1 s and a 4 s cap, reset after 30 s, events to {@code events}. */
  static BackoffPolicy policy(TestProbe<BackoffEvent> events) {
    return BackoffPolicy.exponential(MIN, MAX)
        .withJitter(Jitter.full())
        .withRandomSeed(7)
        .withResetAfter(RESET)
        .withListener(events.ref()::tell);
  }

  /** Waits for the next event, which must be a RestartScheduled for {@code attempt}. */
  static BackoffEvent.RestartScheduled expectRestartScheduled(
      TestProbe<BackoffEvent> events, int attempt) {
    BackoffEvent.RestartScheduled scheduled =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertEquals(attempt, scheduled.attempt(), "attempt of " + scheduled);
    return scheduled;
  }

  /** Moves the clock just past the scheduled restart, in one step (it counts whole milliseconds). */
  static void passDelay(ManualTime time, BackoffEvent.RestartScheduled scheduled) {
    time.timePasses(scheduled.delay().plusMillis(1));
  }

  /** True if {@code expected} is {@code failure} or one of its causes. */
  static boolean causedBy(Throwable failure, Throwable expected) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t == expected) {
        return true;
      }
    }
    return false;
  }

  static void assertCausedBy(Throwable failure, Throwable expected) {
    assertTrue(causedBy(failure, expected), failure + " should be caused by " + expected);
  }
}
