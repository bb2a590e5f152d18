package dev.supervision.backoff.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.testkit.ExplicitlyTriggeredScheduler;

/**
 * The tasks on the {@code ManualTime} scheduler of an actor system: counted on the scheduler
 * itself, so a timer left behind shows even though its tick would be ignored when it fires. Give
 * each test class that counts them an actor system of its own: other tests' actors have timers too.
 */
public final class ManualTimers {

  private ManualTimers() {}

  /** The tasks on the scheduler now (cancelled ones are removed at once). */
  public static int count(ActorSystem<?> system) {
    ExplicitlyTriggeredScheduler scheduler =
        (ExplicitlyTriggeredScheduler) Adapter.toClassic(system).scheduler();
    // Scala's name for the private[testkit] map of scheduled items; public in the bytecode
    return scheduler.org$apache$pekko$testkit$ExplicitlyTriggeredScheduler$$scheduled().size();
  }

  /**
   * Waits (up to 3 s) until the scheduler holds {@code expected} tasks: the test kit's own asks
   * (spawn, stop) put a timeout task on the same scheduler until their answer cancels it.
   */
  public static void await(ActorSystem<?> system, int expected) {
    TestProbe.create(system)
        .awaitAssert(
            Duration.ofSeconds(3),
            () -> {
              assertEquals(expected, count(system), "timers on the scheduler");
              return null;
            });
  }
}
