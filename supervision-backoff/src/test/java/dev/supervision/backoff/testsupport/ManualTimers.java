package dev.supervision.backoff.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    return scheduled(system).size();
  }

  /**
   * The tasks on the scheduler whose next firing is exactly {@code after} from the clock's time now
   * (the map holds each task's time of firing, in ms of the manual clock).
   */
  public static int dueIn(ActorSystem<?> system, Duration after) {
    ExplicitlyTriggeredScheduler scheduler = scheduler(system);
    long at = scheduler.currentTimeMs() + after.toMillis();
    int due = 0;
    for (Object time : scheduled(system).values()) {
      if (time instanceof Long t && t == at) {
        due++;
      }
    }
    return due;
  }

  /**
   * Waits (up to 10 s) until a task is due exactly {@code after} from now: for a timer that an
   * actor puts on the clock when it handles a message, with no event that the test could wait for.
   * Call it while the clock stands still; it proves nothing if another task is due at that time.
   */
  public static void awaitDueIn(ActorSystem<?> system, Duration after) {
    TestProbe.create(system)
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              assertTrue(dueIn(system, after) > 0, "no timer due in " + after);
              return null;
            });
  }

  private static ExplicitlyTriggeredScheduler scheduler(ActorSystem<?> system) {
    return (ExplicitlyTriggeredScheduler) Adapter.toClassic(system).scheduler();
  }

  private static java.util.Map<?, Object> scheduled(ActorSystem<?> system) {
    // Scala's name for the private[testkit] map of scheduled items; public in the bytecode
    return scheduler(system).org$apache$pekko$testkit$ExplicitlyTriggeredScheduler$$scheduled();
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
