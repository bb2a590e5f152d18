package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testsupport.Gates;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * An adaptive budget counts a restart's probation from the moment its actor has started, so the
 * outcome of a grant does not depend on how far the gate's clock ran ahead of the actors: under
 * {@code ManualTime} in steps of 100 ms, 1 s or 10 s, a budget in front of a resource that never
 * comes back holds and grants only probes, never more than the documented probe interval allows,
 * and never ramps; a probe whose actor is stalled while it starts is not a survivor; and the probes
 * of a resource that stays down come 100 ms after holding starts, then 300 ms later, then every
 * 400 ms.
 */
final class AnAdaptiveBudgetJudgesARestartByWhatItsActorDidTest {

  private static final ActorTestKit kit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(kit.system());
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  /** A herd of actors that call a resource that is down in their setup, and fail. */
  private static final class Herd {
    final String budget = "judged-" + names.incrementAndGet();
    final RestartBudget restartBudget = RestartBudget.adaptive(budget);
    final AtomicInteger calls = new AtomicInteger();
    final AtomicBoolean stallNext = new AtomicBoolean();
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<BudgetEvent> events = new CopyOnWriteArrayList<>();
    final TestProbe<BudgetEvent> holding = kit.createTestProbe();

    /** The budget name of the markers published to learn that the collector has seen all before. */
    final String marker = budget + "-marker";

    final TestProbe<BudgetEvent> markers = kit.createTestProbe();

    /** The failures the supervisors have handled: each told the gate before this counts it. */
    final AtomicInteger failuresHandled = new AtomicInteger();

    final int actors;

    /** A herd whose first backoff is at most 100 ms. */
    Herd(int actors) {
      this(actors, Duration.ofMillis(100));
    }

    /** A herd whose first backoff (full jitter) is at most {@code firstBackoff}. */
    Herd(int actors, Duration firstBackoff) {
      this.actors = actors;
      ActorRef<BudgetEvent> collector =
          kit.spawn(
              Behaviors.receive(BudgetEvent.class)
                  .onAnyMessage(
                      e -> {
                        if (e.budget().equals(budget)) {
                          events.add(e);
                          if (e instanceof BudgetEvent.StateChanged s && s.to() == State.HOLDING) {
                            holding.ref().tell(e);
                          }
                        } else if (e.budget().equals(marker)) {
                          markers.ref().tell(e);
                        }
                        return Behaviors.same();
                      })
                  .build());
      kit.system().eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, collector));
      BackoffPolicy policy =
          BackoffPolicy.exponential(firstBackoff, Duration.ofSeconds(2))
              .withRandomSeed(11)
              .withLoggingEnabled(false)
              .withListener(
                  e -> {
                    if (e instanceof BackoffEvent.RestartScheduled) {
                      failuresHandled.incrementAndGet();
                    }
                  })
              .withBudget(restartBudget);
      Behavior<String> cell =
          Behaviors.setup(
              ctx -> {
                if (stallNext.compareAndSet(true, false)) {
                  stalled.countDown();
                  release.await(30, TimeUnit.SECONDS); // the test holds the latch
                }
                calls.incrementAndGet();
                throw new IllegalStateException("resource down");
              });
      for (int i = 0; i < actors; i++) {
        kit.spawn(BackoffSupervisor.wrap(cell, policy));
      }
      holding.receiveMessage(Duration.ofSeconds(10));
      // every actor failed once at its start before time passes, and told the gate
      holding.awaitAssert(
          Duration.ofSeconds(10),
          () -> {
            assertEquals(actors, calls.get());
            assertEquals(actors, failuresHandled.get());
            return null;
          });
    }

    /**
     * Waits until every actor of the herd waits in the gate: each asks for a permit when its backoff
     * ends, and the gate answers the count after the requests ahead of the question.
     */
    void allWaitInTheGate() {
      ActorRef<GateProtocol.Command> gate = RestartBudgets.get(kit.system()).gate(restartBudget);
      holding.awaitAssert(
          Duration.ofSeconds(10),
          () -> {
            assertEquals(actors, Gates.waiting(kit, gate));
            return null;
          });
    }

    long probes() {
      return events.stream().filter(e -> e instanceof BudgetEvent.Probe).count();
    }

    boolean ramped() {
      return events.stream()
          .anyMatch(e -> e instanceof BudgetEvent.StateChanged s && s.to() == State.RAMPING);
    }

    State state() throws Exception {
      return RestartBudgets.get(kit.system())
          .status(budget)
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS)
          .map(GateProtocol.Status::state)
          .orElseThrow();
    }

    /**
     * Waits until every restart granted so far has called the resource and failed, its failure told
     * to the gate (the supervisor tells the gate before its listener hears the failure), except
     * {@code stalled} probes whose actors are held in their setup; returns the calls.
     *
     * <p>Every grant here is a probe, and the gate publishes a {@link BudgetEvent.Probe} when it
     * grants one. The status question reaches the gate after the ticks of the last step, so every
     * grant of them has been made when it is answered; a marker published after the answer reaches
     * the collector after those grants' probe events.
     */
    int settledCalls(int stalled) throws Exception {
      state();
      kit.system()
          .eventStream()
          .tell(new EventStream.Publish<>(new BudgetEvent.Probe(marker, names.incrementAndGet())));
      markers.receiveMessage(Duration.ofSeconds(10));
      holding.awaitAssert(
          Duration.ofSeconds(20),
          () -> {
            assertTrue(
                failuresHandled.get() >= actors + probes() - stalled,
                () ->
                    failuresHandled.get()
                        + " failures handled, "
                        + probes()
                        + " probes granted to "
                        + actors
                        + " actors");
            return null;
          });
      return calls.get();
    }
  }

  /**
   * The most probes a budget may grant in {@code d} of holding: 100 ms after holding starts, then
   * 300 ms later, then one every 400 ms.
   */
  private static long maxProbes(Duration d) {
    long ms = d.toMillis();
    return ms < 100 ? 0 : ms < 400 ? 1 : 2 + (ms - 400) / 400;
  }

  private static void holdsAndGrantsOnlyProbes(Duration step, Duration total) throws Exception {
    Herd herd = new Herd(50);
    int initial = herd.calls.get();
    for (long t = 0; t < total.toMillis(); t += step.toMillis()) {
      time.timePasses(step);
    }
    int calls = herd.settledCalls(0);
    long probes = herd.probes();
    assertFalse(herd.ramped(), step + ": a resource that never came back made it ramp");
    assertEquals(State.HOLDING, herd.state(), step.toString());
    assertEquals(probes, calls - initial, step + ": every restart granted was a probe");
    assertTrue(probes >= 1, step + ": it probed");
    assertTrue(probes <= maxProbes(total), step + ": " + probes + " probes in " + total);
  }

  @Test
  void inStepsOf100ms_itHoldsAndGrantsOnlyProbes() throws Exception {
    // 120 steps: each costs 100 ms of real time
    holdsAndGrantsOnlyProbes(Duration.ofMillis(100), Duration.ofSeconds(12));
  }

  @Test
  void inStepsOf1s_itHoldsAndGrantsOnlyProbes() throws Exception {
    holdsAndGrantsOnlyProbes(Duration.ofSeconds(1), Duration.ofSeconds(60));
  }

  @Test
  void inStepsOf10s_itHoldsAndGrantsOnlyProbes() throws Exception {
    holdsAndGrantsOnlyProbes(Duration.ofSeconds(10), Duration.ofSeconds(60));
  }

  @Test
  void aProbeWhoseActorIsStalledWhileItStartsDoesNotSurvive() throws Exception {
    Herd herd = new Herd(20);
    herd.stallNext.set(true); // the next restart, the first probe, blocks in its setup
    time.timePasses(Duration.ofMillis(100));
    assertTrue(herd.stalled.await(10, TimeUnit.SECONDS), "the probe's actor is stalled");
    for (int i = 0; i < 3; i++) {
      time.timePasses(Duration.ofSeconds(10));
    }
    herd.settledCalls(1); // the stalled probe has not failed yet
    assertFalse(herd.ramped(), "a stalled probe counted as a survivor");
    assertEquals(State.HOLDING, herd.state());
    herd.release.countDown(); // it starts at last, and fails: still holding
    time.timePasses(Duration.ofSeconds(1));
    herd.settledCalls(0);
    assertFalse(herd.ramped());
    assertEquals(State.HOLDING, herd.state());
  }

  @Test
  void probesOfAResourceThatStaysDownCome100msAfterHolding_then300msLater_thenEvery400ms()
      throws Exception {
    // The gate's ticks run from the herd's first failures. The backoffs end (at most 1 ms) and
    // every
    // actor waits in the gate before the first tick: a request sent while the tick's time passes
    // could reach the gate after the tick, and the probe would wait for the next one.
    Herd herd = new Herd(20, Duration.ofMillis(1));
    time.timePasses(Duration.ofMillis(1));
    herd.allWaitInTheGate();
    List<Integer> probedAt = new CopyOnWriteArrayList<>();
    long elapsed = 1;
    for (int step = 1; step <= 20; step++) {
      long before = herd.probes();
      time.timePasses(Duration.ofMillis(step * 100L - elapsed));
      elapsed = step * 100L;
      herd.settledCalls(0); // the probe's failure has reached the gate before the next step
      if (herd.probes() > before) {
        probedAt.add(step * 100);
      }
    }
    assertEquals(List.of(100, 400, 800, 1200, 1600, 2000), probedAt);
  }
}
