package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.ManualTimers;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.ActorRefWithCell;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.testkit.ExplicitlyTriggeredScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Soak: many restart cycles (fail, back off, restart) in one actor and across many actors; afterwards
 * the heap (after GC), the number of scheduled timers and the number of live actors are back to their
 * starting values. Every incarnation spawns a child with a fixed name and starts a one-hour user timer,
 * so a child or timer that outlived its incarnation would show (and a restart that did not wait for the
 * child's termination would fail to spawn the name again).
 *
 * <p>Default size: 10,000 cycles in one actor, 1,000 actors x 10 cycles. Full size with {@code
 * -Dsoak.full=true}: 100,000 cycles in one actor, 10,000 actors x 10 cycles.
 *
 * <p>The manual clock is driven with {@code ExplicitlyTriggeredScheduler.executeTasks}, which fires
 * due tasks like {@code ManualTime.timePasses} but without its 100 ms sleep per call.
 */
final class SoakRestartCyclesLeaveNothingBehindTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final boolean FULL = Boolean.getBoolean("soak.full");
  static final long HEAP_TOLERANCE = 8L * 1024 * 1024;

  static final AtomicLong starts = new AtomicLong();
  static final AtomicInteger setupFailures = new AtomicInteger();

  /** Restarts completed: counted by the Restarted event, which comes after the reset timer is scheduled. */
  static final AtomicLong restarted = new AtomicLong();

  /** The kit's manual clock, driven directly (see the class comment). */
  static ExplicitlyTriggeredScheduler scheduler() {
    return (ExplicitlyTriggeredScheduler) Adapter.toClassic(kit.system()).scheduler();
  }

  enum Cmd {
    FAIL,
    TIMER
  }

  /**
   * Starts healthy; after the first FAIL from outside it fails {@code cycles} times in a row (by
   * telling itself FAIL at every restart), then stays up.
   */
  private static Behavior<Cmd> cycling(int cycles) {
    AtomicInteger mine = new AtomicInteger();
    return Behaviors.setup(
        ctx -> {
          try {
            ctx.spawn(Behaviors.<Void>empty(), "worker"); // same name in every incarnation
          } catch (RuntimeException nameStillTaken) {
            setupFailures.incrementAndGet();
            throw nameStillTaken;
          }
          int n = mine.incrementAndGet();
          starts.incrementAndGet();
          boolean failsAgain = n >= 2 && n <= cycles;
          if (failsAgain) {
            ctx.getSelf().tell(Cmd.FAIL);
          }
          return Behaviors.withTimers(
              timers -> {
                if (failsAgain) {
                  timers.startSingleTimer(
                      Cmd.TIMER, Duration.ofHours(1)); // must die with the incarnation
                }
                return Behaviors.receiveMessage(
                    cmd -> {
                      if (cmd == Cmd.FAIL) {
                        throw new TestFailure();
                      }
                      return Behaviors.same();
                    });
              });
        });
  }

  static final class TestFailure extends RuntimeException {
    TestFailure() {
      super("soak", null, false, false);
    }
  }

  private static Behavior<Cmd> supervised(int cycles) {
    return BackoffSupervisor.wrap(
        cycling(cycles),
        BackoffPolicy.exponential(Duration.ofMillis(1), Duration.ofMillis(4))
            .withResetAfter(Duration.ofMillis(20))
            .withLoggingEnabled(false)
            .withListener(
                e -> {
                  if (e instanceof BackoffEvent.Restarted) {
                    restarted.incrementAndGet();
                  }
                }));
  }

  @Test
  void restartCyclesInOneActorLeaveNothingBehind() throws Exception {
    int cycles = FULL ? 100_000 : 10_000;
    soak(1, cycles, 1);
  }

  /**
   * All actors stay alive throughout; they are made to fail in waves of 1,000, because the manual
   * scheduler rescans its whole table for every task it fires (quadratic in the number of pending
   * timers), and 10,000 actors cycling at once would take tens of minutes for that reason alone.
   */
  @Test
  void restartCyclesAcrossManyActorsLeaveNothingBehind() throws Exception {
    int actors = FULL ? 10_000 : 1_000;
    soak(actors, 10, 1_000);
  }

  private void soak(int actors, int cyclesEach, int wave) throws Exception {
    ExplicitlyTriggeredScheduler scheduler = scheduler();
    long heapBefore = usedHeapAfterGc();
    int timersBefore = ManualTimers.count(kit.system());
    int liveBefore = liveActors();
    long startsBefore = starts.get();
    long restartedBefore = restarted.get();
    long began = System.nanoTime();

    // the parent spawns the actors and, on a message [from, to), makes those fail once
    ActorRef<int[]> parent =
        kit.spawn(
            Behaviors.<int[]>setup(
                ctx -> {
                  java.util.List<ActorRef<Cmd>> children = new java.util.ArrayList<>();
                  for (int i = 0; i < actors; i++) {
                    children.add(ctx.spawn(supervised(cyclesEach), "soak-" + i));
                  }
                  return Behaviors.receiveMessage(
                      range -> {
                        for (int i = range[0]; i < range[1]; i++) {
                          children.get(i).tell(Cmd.FAIL);
                        }
                        return Behaviors.same();
                      });
                }));
    int maxTimers = 0;
    long deadline = System.nanoTime() + Duration.ofMinutes(FULL ? 20 : 2).toNanos();
    long lastStarts = -1;
    long target = startsBefore + actors; // the first starts
    for (int from = 0; from < actors; from += wave) {
      int to = Math.min(actors, from + wave);
      parent.tell(new int[] {from, to});
      target += (long) (to - from) * cyclesEach;
      while (starts.get() < target) {
        scheduler.executeTasks(scheduler.currentTimeMs() + 5);
        maxTimers = Math.max(maxTimers, ManualTimers.count(kit.system()));
        if (System.nanoTime() > deadline) {
          fail(
              "only "
                  + (starts.get() - startsBefore)
                  + " of "
                  + (target - startsBefore)
                  + " starts");
        }
        if (starts.get() == lastStarts) {
          java.util.concurrent.locks.LockSupport.parkNanos(20_000); // let the actors run
        }
        lastStarts = starts.get();
      }
    }
    // the last incarnation has started; wait until its restart is complete (reset timer scheduled)
    long restartsExpected = restartedBefore + (long) actors * cyclesEach;
    while (restarted.get() < restartsExpected) {
      if (System.nanoTime() > deadline) {
        fail("only " + (restarted.get() - restartedBefore) + " restarts completed");
      }
      java.util.concurrent.locks.LockSupport.parkNanos(20_000);
    }
    // let the last incarnations' reset timers fire: healthy actors keep no timer
    scheduler.executeTasks(scheduler.currentTimeMs() + 1000);
    long cyclesDone = (long) actors * cyclesEach;
    double seconds = (System.nanoTime() - began) / 1e9;
    // at most a user timer, a reset timer and a restart tick per cycling actor at once
    assertTrue(
        maxTimers <= timersBefore + 3 * Math.min(actors, wave),
        "timers piled up: " + maxTimers + " for " + Math.min(actors, wave) + " cycling actors");
    assertEquals(
        timersBefore, ManualTimers.count(kit.system()), "healthy, reset actors still have timers");
    assertEquals(
        0, setupFailures.get(), "a restart spawned its child before the old one terminated");

    kit.testKit()
        .stop(parent, Duration.ofSeconds(60)); // returns once the parent and its children are gone
    // stop() asks the kit's guardian: the ask's timeout task sits on this scheduler until a
    // callback
    // cancels it, which may run just after stop() returns; wait for that (a leaked timer never
    // goes)
    kit.createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              assertEquals(
                  timersBefore,
                  ManualTimers.count(kit.system()),
                  "scheduled timers not back to the start");
              return null;
            });
    int timersAfter = ManualTimers.count(kit.system());
    int liveAfter = liveActors();
    long heapAfter = usedHeapAfterGc();
    System.out.printf(
        "Soak: %d restart cycles in %d actor(s) in %.1f s; timers %d -> max %d -> %d; live actors %d -> %d; "
            + "heap after GC %.1f MB -> %.1f MB%n",
        cyclesDone,
        actors,
        seconds,
        timersBefore,
        maxTimers,
        timersAfter,
        liveBefore,
        liveAfter,
        heapBefore / 1048576.0,
        heapAfter / 1048576.0);
    assertEquals(timersBefore, timersAfter, "scheduled timers not back to the start");
    assertEquals(liveBefore, liveAfter, "live actors not back to the start");
    assertTrue(
        heapAfter - heapBefore < HEAP_TOLERANCE,
        "heap grew by " + (heapAfter - heapBefore) / 1024 + " KB over " + cyclesDone + " cycles");
  }

  /**
   * All actors under /user, counted from the user guardian's children and theirs, as they are now.
   * (Asking every level with {@code Identify} needs a timeout to know that the last answer came,
   * and a late answer on a loaded machine would go uncounted.)
   */
  private static int liveActors() {
    return descendants(((ExtendedActorSystem) Adapter.toClassic(kit.system())).guardian());
  }

  private static int descendants(org.apache.pekko.actor.ActorRef parent) {
    int n = 0;
    for (org.apache.pekko.actor.ActorRef child :
        CollectionConverters.asJava(((ActorRefWithCell) parent).children())) {
      n += 1 + descendants(child);
    }
    return n;
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(50);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
