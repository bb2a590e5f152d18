package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
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

  @Test
  void holdsWhileTheResourceIsDown_probes_thenRampsAndRecoversEveryActor() throws Exception {
    String name = "adaptive-db";
    FakeResource resource = new FakeResource();
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
    int initialCalls = resource.callsWhileDown.get();

    for (int step = 0; step < 20; step++) { // 2 s of outage
      kit.time().timePasses(Duration.ofMillis(100));
      awaitQuiet(resource.callsWhileDown);
    }
    long probes = events.stream().filter(e -> e instanceof BudgetEvent.Probe).count();
    assertTrue(probes >= 4 && probes <= 8, "probes " + probes);
    assertEquals(
        initialCalls + probes,
        resource.callsWhileDown.get(),
        "while holding, only probes call the resource");
    Optional<GateProtocol.Status> holding =
        RestartBudgets.get(kit.system())
            .status(name)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    assertEquals(State.HOLDING, holding.orElseThrow().state());
    assertEquals(0.0, holding.orElseThrow().rate());
    assertTrue(holding.orElseThrow().waiting() >= 30, holding.toString());

    resource.capacity = 4;
    resource.up.set(true);
    List<Integer> perWindow = new ArrayList<>();
    for (int step = 0; step < 60 && recovered.get() < 40; step++) {
      resource.nextWindow();
      kit.time().timePasses(Duration.ofMillis(100));
      awaitQuiet(resource.inWindow);
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
    // failures after the outage stay a small share of the calls
    assertTrue(resource.rejected.get() <= 20, "rejected " + resource.rejected.get() + " " + events);
  }

  private static void awaitQuiet(AtomicInteger counter) {
    TestProbe<String> p = kit.createTestProbe();
    int last = -1;
    while (counter.get() != last) {
      last = counter.get();
      p.expectNoMessage(Duration.ofMillis(60));
    }
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
