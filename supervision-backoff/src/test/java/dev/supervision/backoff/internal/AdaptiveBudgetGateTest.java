package dev.supervision.backoff.internal;

import static dev.supervision.backoff.testsupport.Gates.forwarding;
import static dev.supervision.backoff.testsupport.Gates.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.spi.GateProtocol.Failed;
import dev.supervision.backoff.spi.GateProtocol.Status;
import dev.supervision.backoff.testsupport.Gates.Grant;
import dev.supervision.backoff.testsupport.StartingRequester;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * An adaptive budget's gate under ManualTime: it passes restarts at once while steady (up to its
 * ceiling), holds after the configured failures, probes, ramps at the configured initial rate when
 * a probe survives its probation, cuts to the measured goodput, and publishes each step (growth
 * only when it has grown by a quarter).
 */
final class AdaptiveBudgetGateTest {

  private static final ActorTestKit kit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(kit.system());
  private static final Duration QUIET = Duration.ofMillis(200);
  private static final Duration SLICE = Duration.ofMillis(100);
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  private static String fresh() {
    return "adaptive-gate-" + names.incrementAndGet();
  }

  /**
   * Requesters that forward the name in each grant they get to one probe and, like a supervised
   * actor whose restarted behavior started, tell the gate they started.
   */
  private static final class Requesters {
    final TestProbe<String> granted = kit.createTestProbe();
    private final ActorRef<GateProtocol.Command> gate;

    Requesters(ActorRef<GateProtocol.Command> gate) {
      this.gate = gate;
    }

    ActorRef<Object> spawn() {
      return kit.spawn(
          StartingRequester.create(gate, Grant.class, g -> granted.ref().tell(g.who())));
    }

    /** A requester whose permit reaches it after it stopped: it never starts. */
    ActorRef<Object> spawnStopped() {
      return forwarding(kit, granted);
    }
  }

  /** The budget events of one budget, in order. */
  private static TestProbe<BudgetEvent> events(String budget) {
    TestProbe<BudgetEvent> probe = kit.createTestProbe();
    ActorRef<BudgetEvent> filter =
        kit.spawn(
            Behaviors.receive(BudgetEvent.class)
                .onAnyMessage(
                    e -> {
                      if (e.budget().equals(budget)) {
                        probe.ref().tell(e);
                      }
                      return Behaviors.same();
                    })
                .build());
    kit.system().eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, filter));
    return probe;
  }

  @Test
  void steadyPassesAtOnce_holdsAfterTheFailures_probes_ramps_cutsToTheGoodput_andGrows() {
    String name = fresh();
    TestProbe<BudgetEvent> events = events(name);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).withHoldAfter(2), 1));
    assertEquals(
        new Status(name, State.STEADY, Double.POSITIVE_INFINITY, Double.NaN, 0, Optional.empty()),
        status(kit, gate));
    Requesters r = new Requesters(gate);
    ActorRef<Object> ab = r.spawn();
    gate.tell(new Acquire(ab, new Grant("a")));
    gate.tell(new Acquire(ab, new Grant("b")));
    assertEquals(List.of("a", "b"), r.granted.receiveSeveralMessages(2)); // steady: at once
    // two failures of actors it did not grant (holdAfter 2): hold
    gate.tell(new Failed(r.spawn()));
    events.expectNoMessage(QUIET); // one failure is not enough
    gate.tell(new Failed(r.spawn()));
    assertEquals(
        new BudgetEvent.StateChanged(name, State.STEADY, State.HOLDING, Reason.FAILURES),
        events.receiveMessage());
    ActorRef<Object> c = r.spawn();
    gate.tell(new Acquire(c, new Grant("c")));
    List<ActorRef<Object>> fs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      fs.add(r.spawn());
      gate.tell(new Acquire(fs.get(i), new Grant("f" + i)));
    }
    for (int i = 0; i < 200; i++) { // one actor each: an actor has one restart at a time
      gate.tell(new Acquire(r.spawn(), new Grant("bulk" + i)));
    }
    r.granted.expectNoMessage(QUIET);
    assertEquals(
        new Status(name, State.HOLDING, 0.0, Double.NaN, 211, Optional.empty()), status(kit, gate));
    time.timePasses(SLICE); // the first probe, one slice after holding began
    assertEquals(new BudgetEvent.Probe(name, 1), events.receiveMessage());
    assertEquals("c", r.granted.receiveMessage());
    r.granted.expectNoMessage(QUIET);
    // the probe survives its probation (one slice) and its slice is resolved one slice later:
    // ramping at 100 per second, 10 permits per slice
    time.timePasses(SLICE.multipliedBy(2));
    assertEquals(
        new BudgetEvent.StateChanged(name, State.HOLDING, State.RAMPING, Reason.PROBE_SURVIVED),
        events.receiveMessage());
    assertEquals(
        new BudgetEvent.RateChanged(
            name, Double.POSITIVE_INFINITY, 100.0, Double.NaN, Reason.PROBE_SURVIVED),
        events.receiveMessage());
    // paced 10 ms apart within the slice, each tick granting those due before the next: two at
    // 300 ms, then one at each tick from 310 to 380 ms; ten distinct actors: their grants reach the
    // probe in any order
    List<String> ramped = new ArrayList<>(r.granted.receiveSeveralMessages(2));
    r.granted.expectNoMessage(QUIET); // two at 300 ms, not ten
    time.timePasses(Duration.ofMillis(90));
    ramped.addAll(r.granted.receiveSeveralMessages(8));
    ramped.sort(null);
    assertEquals(List.of("f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9"), ramped);
    r.granted.expectNoMessage(QUIET);
    // half of them fail at once: a loss; goodput 5 per 100 ms = 50 per second, rate 0.9 * 50
    for (int i = 0; i < 5; i++) {
      gate.tell(new Failed(fs.get(i)));
    }
    status(kit, gate); // the failures are in
    time.timePasses(SLICE);
    BudgetEvent.RateChanged loss = (BudgetEvent.RateChanged) events.receiveMessage();
    assertEquals(Reason.LOSS, loss.reason());
    assertEquals(100.0, loss.from(), 1e-9);
    assertEquals(45.0, loss.to(), 1e-9);
    assertEquals(50.0, loss.goodput(), 1e-9);
    // the first four in the queue, granted to four actors: they reach the probe in any order
    List<String> afterTheCut = new ArrayList<>(r.granted.receiveSeveralMessages(4));
    afterTheCut.sort(null);
    assertEquals(List.of("bulk0", "bulk1", "bulk2", "bulk3"), afterTheCut);
    // then the rate grows by 2 % per slice whose restarts started while actors waited: the 12th
    // growth is the first one above 45 * 1.25, and the first one published (at the earliest 13
    // slices on; a slice in which no restart started yet does not grow)
    time.timePasses(SLICE.multipliedBy(10));
    events.expectNoMessage(QUIET);
    BudgetEvent growthEvent = null;
    for (int slices = 0; growthEvent == null; slices++) {
      assertTrue(slices < 30, "a growth is published within 40 slices of the cut");
      time.timePasses(SLICE);
      try {
        growthEvent = events.receiveMessage(QUIET);
      } catch (AssertionError none) {
        // not this slice
      }
    }
    BudgetEvent.RateChanged growth = (BudgetEvent.RateChanged) growthEvent;
    assertEquals(Reason.GROWTH, growth.reason());
    assertEquals(45 * Math.pow(1.02, 11), growth.from(), 1e-9);
    assertEquals(45 * Math.pow(1.02, 12), growth.to(), 1e-9);
    assertEquals(Double.NaN, growth.goodput());
    Status s = status(kit, gate);
    assertEquals(State.RAMPING, s.state());
    assertEquals(45 * Math.pow(1.02, 12), s.rate(), 1e-9);
    assertEquals(50.0, s.goodput(), 1e-9);
  }

  @Test
  void aProbeThatFailsWithinItsProbationCountsAgainstIt_evenLongAfterTwoSlices() {
    // probation 500 ms: the gate remembers the probe's grant for 600 ms, not two slices
    String name = fresh();
    TestProbe<BudgetEvent> events = events(name);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(
            BudgetGate.create(
                RestartBudget.adaptive(name).withHoldAfter(1).withProbation(Duration.ofMillis(500)),
                1));
    Requesters r = new Requesters(gate);
    gate.tell(new Acquire(r.spawn(), new Grant("a")));
    r.granted.expectMessage("a");
    gate.tell(new Failed(r.spawn()));
    assertEquals(
        new BudgetEvent.StateChanged(name, State.STEADY, State.HOLDING, Reason.FAILURES),
        events.receiveMessage());
    ActorRef<Object> c = r.spawn();
    gate.tell(new Acquire(c, new Grant("c1")));
    time.timePasses(SLICE);
    assertEquals(new BudgetEvent.Probe(name, 1), events.receiveMessage());
    r.granted.expectMessage("c1"); // granted at 100 ms
    time.timePasses(SLICE.multipliedBy(5));
    status(kit, gate); // 600 ms: the probe fails, 500 ms after its grant, the last of its probation
    gate.tell(new Failed(c));
    gate.tell(new Acquire(c, new Grant("c2")));
    // 700 ms: a probe that had survived would be resolved now; this one failed, which doubles
    // the interval: the next probe 200 ms after the failure is seen
    time.timePasses(SLICE);
    assertEquals(
        new Status(name, State.HOLDING, 0.0, Double.NaN, 1, Optional.empty()), status(kit, gate));
    time.timePasses(SLICE);
    status(kit, gate);
    r.granted.expectNoMessage(QUIET);
    time.timePasses(SLICE);
    assertEquals(new BudgetEvent.Probe(name, 2), events.receiveMessage());
    r.granted.expectMessage("c2");
    events.expectNoMessage(QUIET);
  }

  @Test
  void rampingStartsAtTheConfiguredInitialRate() {
    String name = fresh();
    TestProbe<BudgetEvent> events = events(name);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(
            BudgetGate.create(
                RestartBudget.adaptive(name)
                    .withHoldAfter(1)
                    .withInitialRate(60, Duration.ofSeconds(2)),
                1));
    Requesters r = new Requesters(gate);
    gate.tell(new Failed(r.spawn()));
    assertEquals(State.HOLDING, ((BudgetEvent.StateChanged) events.receiveMessage()).to());
    ActorRef<Object> waiter = r.spawn();
    for (int i = 0; i < 10; i++) {
      gate.tell(new Acquire(waiter, new Grant("w" + i)));
    }
    time.timePasses(SLICE);
    assertEquals(new BudgetEvent.Probe(name, 1), events.receiveMessage());
    r.granted.expectMessage("w0");
    time.timePasses(SLICE.multipliedBy(2));
    assertEquals(State.RAMPING, ((BudgetEvent.StateChanged) events.receiveMessage()).to());
    assertEquals(
        new BudgetEvent.RateChanged(
            name, Double.POSITIVE_INFINITY, 30.0, Double.NaN, Reason.PROBE_SURVIVED),
        events.receiveMessage());
    // 30 per second: 3 permits per slice, paced 33 ms apart (at 300, 340 and 370 ms)
    assertEquals(List.of("w1"), r.granted.receiveSeveralMessages(1));
    r.granted.expectNoMessage(QUIET);
    time.timePasses(Duration.ofMillis(90));
    assertEquals(List.of("w2", "w3"), r.granted.receiveSeveralMessages(2));
    r.granted.expectNoMessage(QUIET);
  }

  @Test
  void aCeilingLimitsSteadyRestarts() {
    // at most 40 per 2 s: 20 per second, 2 permits per 100 ms slice
    RestartBudget budget = RestartBudget.adaptive(fresh()).withMaxRate(40, Duration.ofSeconds(2));
    ActorRef<GateProtocol.Command> gate = kit.spawn(BudgetGate.create(budget, 1));
    assertEquals(
        new Status(budget.getName(), State.STEADY, 20.0, Double.NaN, 0, Optional.empty()),
        status(kit, gate));
    Requesters r = new Requesters(gate);
    ActorRef<Object> waiter = r.spawn();
    for (int i = 0; i < 5; i++) {
      gate.tell(new Acquire(waiter, new Grant("w" + i)));
    }
    // paced 50 ms apart, not two at once
    assertEquals(List.of("w0"), r.granted.receiveSeveralMessages(1));
    r.granted.expectNoMessage(QUIET);
    time.timePasses(SLICE);
    assertEquals(List.of("w1", "w2"), r.granted.receiveSeveralMessages(2));
    r.granted.expectNoMessage(QUIET);
  }

  @Test
  void aLargerShareRefillsABucketThatWasFull() {
    // at most 40 per second: 4 per slice; a quarter holds 1 permit (full); back to one member
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(
            BudgetGate.create(
                RestartBudget.adaptive(fresh()).withMaxRate(40, Duration.ofSeconds(1)), 1));
    gate.tell(new GateProtocol.SetShare(4));
    gate.tell(new GateProtocol.SetShare(1));
    assertEquals(40.0, status(kit, gate).rate(), 1e-9);
    time.timePasses(SLICE.multipliedBy(2)); // the first tick starts its clock, the second refills
    Requesters r = new Requesters(gate);
    ActorRef<Object> waiter = r.spawn();
    for (int i = 0; i < 5; i++) {
      gate.tell(new Acquire(waiter, new Grant("w" + i)));
    }
    // four permits in the slice, paced 25 ms apart
    assertEquals(List.of("w0"), r.granted.receiveSeveralMessages(1));
    time.timePasses(Duration.ofMillis(90));
    assertEquals(List.of("w1", "w2", "w3"), r.granted.receiveSeveralMessages(3));
    r.granted.expectNoMessage(QUIET);
  }

  @Test
  void aPermitOfAnActorThatStoppedWithinTwoSlicesGoesToTheNextWaiter_whateverTheProbation() {
    // at most 1 per second (0.1 permit per slice); probation 1 ms, shorter than a slice
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(
            BudgetGate.create(
                RestartBudget.adaptive(fresh())
                    .withProbation(Duration.ofMillis(1))
                    .withMaxRate(1, Duration.ofSeconds(1)),
                1));
    Requesters r = new Requesters(gate);
    ActorRef<Object> a = r.spawnStopped();
    gate.tell(new Acquire(a, new Grant("a")));
    r.granted.expectMessage("a");
    gate.tell(new Acquire(r.spawn(), new Grant("b")));
    time.timePasses(SLICE.multipliedBy(2));
    r.granted.expectNoMessage(QUIET);
    gate.tell(new GateProtocol.Cancel(a));
    r.granted.expectMessage("b");
  }

  @Test
  void failuresLongerThanASecondApartDoNotAddUp_evenWhenTheGateWasIdle() {
    String name = fresh();
    TestProbe<BudgetEvent> events = events(name);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).withHoldAfter(2), 1));
    Requesters r = new Requesters(gate);
    gate.tell(new Failed(r.spawn()));
    status(kit, gate);
    time.timePasses(Duration.ofSeconds(2));
    gate.tell(new Failed(r.spawn()));
    assertEquals(
        new Status(name, State.STEADY, Double.POSITIVE_INFINITY, Double.NaN, 0, Optional.empty()),
        status(kit, gate));
    events.expectNoMessage(QUIET);
    gate.tell(new Failed(r.spawn())); // two within a second: hold
    assertEquals(State.HOLDING, ((BudgetEvent.StateChanged) events.receiveMessage()).to());
  }

  @Test
  void eachStepIsLoggedAtDebug_underTheBudgetsLogger_withRatesToOneDecimal() {
    String name = fresh();
    String prefix = "Restart budget [" + name + "]: ";
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).withHoldAfter(1), 1));
    Requesters r = new Requesters(gate);
    ActorRef<Object> waiter = r.spawn();
    // the logger docs/operations.md names, with the gate's path as the line's source
    LoggingTestKit.debug(prefix + "STEADY -> HOLDING (FAILURES)")
        .withLoggerName("dev.supervision.backoff.RestartBudget")
        .withSource(gate.path().toString())
        .expect(
            kit.system(),
            () -> {
              gate.tell(new Failed(r.spawn()));
              return null;
            });
    gate.tell(new Acquire(waiter, new Grant("w0")));
    gate.tell(new Acquire(waiter, new Grant("w1")));
    LoggingTestKit.debug(prefix + "probe 1 while holding")
        .expect(
            kit.system(),
            () -> {
              time.timePasses(SLICE);
              return null;
            });
    r.granted.expectMessage("w0");
    LoggingTestKit.debug(
            prefix
                + "rate Infinity -> 100.0 per second (PROBE_SURVIVED, measured goodput NaN per"
                + " second)")
        .expect(
            kit.system(),
            () ->
                LoggingTestKit.debug(prefix + "HOLDING -> RAMPING (PROBE_SURVIVED)")
                    .expect(
                        kit.system(),
                        () -> {
                          time.timePasses(SLICE.multipliedBy(2));
                          return null;
                        }));
    r.granted.expectMessage("w1");
  }
}
