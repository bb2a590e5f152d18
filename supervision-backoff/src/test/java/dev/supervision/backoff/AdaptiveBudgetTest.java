package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.testkit.ExplicitlyTriggeredScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An adaptive budget in front of 40 actors and a resource that is down, then serves 4 calls per 100 ms. */
final class AdaptiveBudgetTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /** A shared resource: down, or up with a capacity per window; the test moves the window. */
  static final class FakeResource {
    final AtomicBoolean up = new AtomicBoolean();
    final AtomicInteger inWindow = new AtomicInteger();
    final AtomicInteger callsWhileDown = new AtomicInteger();
    final AtomicInteger rejected = new AtomicInteger();
    volatile int capacity;

    boolean call() {
      if (!up.get()) {
        callsWhileDown.incrementAndGet();
        return false;
      }
      if (inWindow.incrementAndGet() > capacity) {
        rejected.incrementAndGet();
        return false;
      }
      return true;
    }

    void nextWindow() {
      inWindow.set(0);
    }
  }

  static final class Down extends RuntimeException {
    Down() {
      super("resource down or overloaded", null, false, false);
    }
  }

  /**
   * Tells when the actors and the gate have done all that the last {@code timePasses} let them do,
   * from the supervisors' events and the gate's status, not from a quiet spell of wall-clock time:
   * no permit is on its way or being used, every restart timer that fell due has led to a request,
   * and the gate holds every request. The supervisor tells the gate ({@code Acquire}, {@code Failed})
   * before it reports the event, and a granted restart reports its outcome in the same message as
   * {@code PermitGranted}, so the status asked after a snapshot of the events tells the rest.
   */
  static final class Settling implements BackoffListener {
    private record Last(BackoffEvent event, long dueMs) {}

    private final ExplicitlyTriggeredScheduler scheduler =
        (ExplicitlyTriggeredScheduler) Adapter.toClassic(kit.system()).scheduler();
    private final Map<ActorRef<?>, Last> last = new ConcurrentHashMap<>();
    private final AtomicLong events = new AtomicLong();
    private final AtomicInteger granted = new AtomicInteger();

    @Override
    public void onEvent(BackoffEvent event) {
      // a restart is scheduled while the test waits or at the gate's tick, the last task of a step:
      // the scheduler's time now is the time it was scheduled at
      long due =
          event instanceof BackoffEvent.RestartScheduled s
              ? scheduler.currentTimeMs() + s.delay().toMillis()
              : Long.MAX_VALUE;
      last.put(event.actor(), new Last(event, due));
      if (event instanceof BackoffEvent.PermitGranted) {
        granted.incrementAndGet();
      }
      events.incrementAndGet();
    }

    /** The permits granted so far. */
    int granted() {
      return granted.get();
    }

    /** Waits until the {@code actors} and the budget's gate have nothing left to do at this time. */
    void await(int actors, String budget) {
      kit.<String>createTestProbe()
          .awaitAssert(
              Duration.ofSeconds(30),
              Duration.ofMillis(5),
              () -> {
                long before = events.get();
                long now = scheduler.currentTimeMs();
                int asking = 0;
                for (Last l : last.values()) {
                  assertTrue(
                      !(l.event() instanceof BackoffEvent.PermitGranted), "a restart in progress");
                  assertTrue(l.dueMs() > now, "a restart timer fell due: its request is coming");
                  asking += l.event() instanceof BackoffEvent.WaitingForPermit ? 1 : 0;
                }
                assertEquals(actors, last.size(), "every actor has reported");
                int waiting = status(budget).waiting();
                assertEquals(before, events.get(), "events while the status was asked");
                assertEquals(asking, waiting, "requests or permits on their way");
                return null;
              });
    }
  }

  private static GateProtocol.Status status(String budget) {
    try {
      return RestartBudgets.get(kit.system())
          .status(budget)
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS)
          .orElseThrow();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void holdsWhileTheResourceIsDown_probes_thenRampsAndRecoversEveryActor() throws Exception {
    String name = "adaptive-db";
    FakeResource resource = new FakeResource();
    Settling settling = new Settling();
    AtomicInteger recovered = new AtomicInteger();
    List<BudgetEvent> events = new CopyOnWriteArrayList<>();
    TestProbe<BudgetEvent> monitor = kit.createTestProbe();
    kit.system().eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, monitor.ref()));
    ActorRef<BudgetEvent> collector =
        kit.spawn(
            Behaviors.receive(BudgetEvent.class)
                .onAnyMessage(
                    e -> {
                      events.add(e);
                      return Behaviors.same();
                    })
                .build());
    kit.system().eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, collector));
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2))
            .withRandomSeed(7)
            .withResetAfter(Duration.ofHours(1))
            .withListener(settling)
            .withBudget(RestartBudget.adaptive(name));
    Behavior<String> cell =
        Behaviors.setup(
            ctx -> {
              if (!resource.call()) {
                throw new Down();
              }
              recovered.incrementAndGet();
              return Behaviors.empty();
            });
    for (int i = 0; i < 40; i++) {
      kit.spawn(BackoffSupervisor.wrap(cell, policy));
    }
    monitor.fishForMessage(
        Duration.ofSeconds(5),
        e ->
            e instanceof BudgetEvent.StateChanged s && s.to() == State.HOLDING
                ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
    // the budget holds after its 10th failure, while the other actors may still be starting
    monitor.awaitAssert(
        Duration.ofSeconds(5),
        () -> {
          assertEquals(40, resource.callsWhileDown.get(), "every actor failed once at its start");
          return null;
        });
    settling.await(40, name);
    int initialCalls = resource.callsWhileDown.get();

    for (int step = 0; step < 20; step++) { // 2 s of outage
      kit.time().timePasses(Duration.ofMillis(100));
      settling.await(40, name);
    }
    int granted = settling.granted();
    assertEquals(
        initialCalls + granted,
        resource.callsWhileDown.get(),
        "every granted restart called the resource once");
    // the budget's events reach the collector through the event stream, a little later
    monitor.awaitAssert(
        Duration.ofSeconds(5),
        () -> {
          assertEquals(
              granted,
              events.stream().filter(e -> e instanceof BudgetEvent.Probe).count(),
              "while holding, only probes call the resource");
          return null;
        });
    assertTrue(granted >= 4 && granted <= 8, "probes " + granted);
    GateProtocol.Status holding = status(name);
    assertEquals(State.HOLDING, holding.state());
    assertEquals(0.0, holding.rate());
    assertTrue(holding.waiting() >= 30, holding.toString());

    resource.capacity = 4;
    resource.up.set(true);
    List<Integer> perWindow = new ArrayList<>();
    for (int step = 0; step < 60 && recovered.get() < 40; step++) {
      resource.nextWindow();
      kit.time().timePasses(Duration.ofMillis(100));
      settling.await(40, name);
      perWindow.add(Math.min(resource.inWindow.get(), 4));
    }
    assertEquals(40, recovered.get(), "all recovered; served per window " + perWindow);
    assertTrue(
        events.stream()
            .anyMatch(
                e ->
                    e instanceof BudgetEvent.StateChanged s
                        && s.from() == State.HOLDING
                        && s.to() == State.RAMPING
                        && s.reason() == Reason.PROBE_SURVIVED),
        events.toString());
    // Failures after the outage are the ramp's overshoot, bounded by the design: the ramp starts at
    // the default initial rate, 100/s (10 a slice, 6 above the resource's 4), grows by slow start
    // to
    // 141/s (14 a slice, 10 above), and a slice's losses may reach the budget only after its next
    // slice was granted (the actors run beside the ManualTime step), so one more slice at 141/s
    // (10 above); after the cut to at most half, a rejection a slice for the 3 slices the rest
    // needs.
    int overshoot = (10 - 4) + (14 - 4) + (14 - 4) + 3;
    assertTrue(
        resource.rejected.get() <= overshoot,
        "rejected " + resource.rejected.get() + " > " + overshoot + " " + events);
  }

  @Test
  void permanentFailuresDoNotCount() throws Exception {
    String name = "adaptive-permanent";
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withStopOn(IllegalArgumentException.class)
            .withBudget(RestartBudget.adaptive(name));
    TestProbe<String> probe = kit.createTestProbe();
    List<ActorRef<String>> actors = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      actors.add(
          kit.spawn(
              BackoffSupervisor.wrap(
                  Behaviors.<String>setup(
                      ctx -> {
                        throw new IllegalArgumentException("bad configuration");
                      }),
                  policy)));
    }
    actors.forEach(probe::expectTerminated);
    probe.expectNoMessage(Duration.ofMillis(200));
    assertEquals(
        State.STEADY,
        RestartBudgets.get(kit.system())
            .status(name)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS)
            .orElseThrow()
            .state(),
        "20 permanent failures do not make the budget hold");
    // while 20 transient ones do
    BackoffPolicy transientPolicy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withBudget(RestartBudget.adaptive(name));
    for (int i = 0; i < 20; i++) {
      kit.spawn(
          BackoffSupervisor.wrap(
              Behaviors.<String>setup(
                  ctx -> {
                    throw new IllegalStateException("down");
                  }),
              transientPolicy));
    }
    probe.awaitAssert(
        () -> {
          try {
            assertEquals(
                State.HOLDING,
                RestartBudgets.get(kit.system())
                    .status(name)
                    .toCompletableFuture()
                    .get(5, TimeUnit.SECONDS)
                    .orElseThrow()
                    .state());
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          return null;
        });
  }
}
