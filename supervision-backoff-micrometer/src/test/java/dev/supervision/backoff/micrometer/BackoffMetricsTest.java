package dev.supervision.backoff.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffTestKit;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** BackoffMetrics: the meters' exact values after a scripted sequence of failures under ManualTime. */
final class BackoffMetricsTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /** "started" on start, "preRestart" on restart; "fail" throws IllegalStateException, "bad" IllegalArgumentException. */
  private static Behavior<String> worker(ActorRef<String> probe) {
    return Behaviors.setup(
        ctx -> {
          probe.tell("started");
          return Behaviors.receive(String.class)
              .onMessageEquals(
                  "fail",
                  () -> {
                    throw new IllegalStateException("transient");
                  })
              .onMessageEquals(
                  "bad",
                  () -> {
                    throw new IllegalArgumentException("permanent");
                  })
              .onSignal(
                  PreRestart.class,
                  s -> {
                    probe.tell("preRestart");
                    return Behaviors.same();
                  })
              .build();
        });
  }

  private static final BackoffPolicy POLICY =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
          .withJitter(Jitter.none())
          .withResetAfter(Duration.ofSeconds(5))
          .withMaxRestarts(2)
          .withStopOn(IllegalArgumentException.class)
          .withLoggingEnabled(false);

  /** A listener of new metrics bound to {@code registry}. */
  private static BackoffListener boundListener(MeterRegistry registry, String name) {
    BackoffMetrics metrics = new BackoffMetrics();
    metrics.bindTo(registry);
    return metrics.listener(name);
  }

  private static double count(MeterRegistry r, String meter, String name) {
    return r.get(meter).tag(BackoffMetrics.NAME_TAG, name).counter().count();
  }

  private static double gauge(MeterRegistry r, String meter, String name) {
    return r.get(meter).tag(BackoffMetrics.NAME_TAG, name).gauge().value();
  }

  private static double lastDelayMillis(MeterRegistry r, String name) {
    return r.get(BackoffMetrics.DELAY_LAST)
        .tag(BackoffMetrics.NAME_TAG, name)
        .timeGauge()
        .value(TimeUnit.MILLISECONDS);
  }

  private static double giveUps(MeterRegistry r, String name, String reason) {
    return r.get(BackoffMetrics.GIVE_UPS)
        .tag(BackoffMetrics.NAME_TAG, name)
        .tag(BackoffMetrics.REASON_TAG, reason)
        .counter()
        .count();
  }

  @Test
  void metersCountAScriptedSequenceOfFailures() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    String name = "orders";
    // listeners run in order, so an event on this probe has already been recorded in the meters
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        POLICY.withListener(boundListener(registry, name)).withListener(events.ref()::tell);
    TestProbe<String> pa = kit.createTestProbe();
    TestProbe<String> pb = kit.createTestProbe();
    TestProbe<String> pc = kit.createTestProbe();
    ActorRef<String> a = kit.spawn(BackoffSupervisor.wrap(worker(pa.ref()), policy));
    ActorRef<String> b = kit.spawn(BackoffSupervisor.wrap(worker(pb.ref()), policy));
    ActorRef<String> c = kit.spawn(BackoffSupervisor.wrap(worker(pc.ref()), policy));
    pa.expectMessage("started");
    pb.expectMessage("started");
    pc.expectMessage("started");

    // every meter exists, at zero, before anything fails
    assertEquals(0.0, count(registry, BackoffMetrics.RESTARTS_SCHEDULED, name));
    assertEquals(0.0, gauge(registry, BackoffMetrics.IN_BACKOFF, name));
    assertEquals(0.0, giveUps(registry, name, "permanent_failure"));

    // a and b fail: both wait 100 ms
    a.tell("fail");
    b.tell("fail");
    pa.expectMessage("preRestart");
    pb.expectMessage("preRestart");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertEquals(2.0, count(registry, BackoffMetrics.RESTARTS_SCHEDULED, name));
    assertEquals(2.0, gauge(registry, BackoffMetrics.IN_BACKOFF, name));
    assertEquals(100.0, lastDelayMillis(registry, name));

    kit.time().timePasses(Duration.ofMillis(100));
    pa.expectMessage("started");
    pb.expectMessage("started");
    events.expectMessageClass(BackoffEvent.Restarted.class);
    events.expectMessageClass(BackoffEvent.Restarted.class);
    assertEquals(2.0, count(registry, BackoffMetrics.RESTARTS, name));
    assertEquals(0.0, gauge(registry, BackoffMetrics.IN_BACKOFF, name));

    // a fails again (200 ms), c fails once (100 ms) and is stopped while it waits
    // one after the other, so that c's delay is the last one
    a.tell("fail");
    pa.expectMessage("preRestart");
    assertEquals(
        Duration.ofMillis(200),
        events.expectMessageClass(BackoffEvent.RestartScheduled.class).delay());
    c.tell("fail");
    pc.expectMessage("preRestart");
    assertEquals(
        Duration.ofMillis(100),
        events.expectMessageClass(BackoffEvent.RestartScheduled.class).delay());
    assertEquals(2.0, gauge(registry, BackoffMetrics.IN_BACKOFF, name));
    assertEquals(100.0, lastDelayMillis(registry, name));
    kit.testKit().stop(c);
    events.expectMessageClass(BackoffEvent.StoppedDuringBackoff.class);
    kit.time().timePasses(Duration.ofMillis(200));
    pa.expectMessage("started");
    events.expectMessageClass(BackoffEvent.Restarted.class);
    assertEquals(1.0, count(registry, BackoffMetrics.STOPPED_DURING_BACKOFF, name));
    assertEquals(0.0, gauge(registry, BackoffMetrics.IN_BACKOFF, name));

    // a's third failure exceeds maxRestarts = 2; b's permanent failure stops it at once
    a.tell("fail");
    b.tell("bad");
    events.expectMessageClass(BackoffEvent.GaveUp.class);
    events.expectMessageClass(BackoffEvent.GaveUp.class);
    events.expectNoMessage(Duration.ofMillis(100));
    assertEquals(1.0, giveUps(registry, name, "max_restarts_reached"));
    assertEquals(1.0, giveUps(registry, name, "permanent_failure"));

    assertEquals(4.0, count(registry, BackoffMetrics.RESTARTS_SCHEDULED, name));
    assertEquals(3.0, count(registry, BackoffMetrics.RESTARTS, name));
    assertEquals(0.0, count(registry, BackoffMetrics.RESETS, name));
    var delays = registry.get(BackoffMetrics.DELAY).tag(BackoffMetrics.NAME_TAG, name).timer();
    assertEquals(4, delays.count());
    assertEquals(100.0 + 100.0 + 200.0 + 100.0, delays.totalTime(TimeUnit.MILLISECONDS));
    assertEquals(200.0, delays.max(TimeUnit.MILLISECONDS));
  }

  @Test
  void budgetWaitsAreCountedAndTimedByTheRegistryClock() {
    MockClock clock = new MockClock();
    SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    // one restart per second, one at a time: the second of two actors waits a whole second
    RestartBudget budget = RestartBudget.of("metrics-db", 1, Duration.ofSeconds(1)).withBurst(1);
    BackoffPolicy policy =
        POLICY
            .withBudget(budget)
            .withListener(boundListener(registry, "budgeted"))
            .withListener(events.ref()::tell);
    TestProbe<String> pa = kit.createTestProbe();
    TestProbe<String> pb = kit.createTestProbe();
    ActorRef<String> a = kit.spawn(BackoffSupervisor.wrap(worker(pa.ref()), policy));
    ActorRef<String> b = kit.spawn(BackoffSupervisor.wrap(worker(pb.ref()), policy));
    pa.expectMessage("started");
    pb.expectMessage("started");
    a.tell("fail");
    b.tell("fail");
    pa.expectMessage("preRestart");
    pb.expectMessage("preRestart");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);

    clock.add(Duration.ofMillis(100));
    kit.time().timePasses(Duration.ofMillis(100));
    // both ask; the first is granted at once and restarts (events of two actors, in any order)
    java.util.Map<Class<?>, Integer> kinds = new java.util.HashMap<>();
    for (int i = 0; i < 4; i++) {
      kinds.merge(events.receiveMessage().getClass(), 1, Integer::sum);
    }
    assertEquals(
        java.util.Map.of(
            BackoffEvent.WaitingForPermit.class, 2,
            BackoffEvent.PermitGranted.class, 1,
            BackoffEvent.Restarted.class, 1),
        kinds);
    var waits =
        registry
            .get(BackoffMetrics.BUDGET_WAITS)
            .tag(BackoffMetrics.BUDGET_TAG, "metrics-db")
            .counter();
    var waiting =
        registry
            .get(BackoffMetrics.BUDGET_WAITING)
            .tag(BackoffMetrics.BUDGET_TAG, "metrics-db")
            .gauge();
    var wait =
        registry
            .get(BackoffMetrics.BUDGET_WAIT)
            .tag(BackoffMetrics.BUDGET_TAG, "metrics-db")
            .timer();
    assertEquals(2.0, waits.count());
    assertEquals(1.0, waiting.value());
    assertEquals(1, wait.count());
    assertEquals(0.0, wait.totalTime(TimeUnit.MILLISECONDS));
    assertEquals(1.0, gauge(registry, BackoffMetrics.IN_BACKOFF, "budgeted"));

    clock.add(Duration.ofSeconds(1));
    kit.time().timePasses(Duration.ofSeconds(1));
    events.expectMessageClass(BackoffEvent.PermitGranted.class);
    events.expectMessageClass(BackoffEvent.Restarted.class);
    assertEquals(0.0, waiting.value());
    assertEquals(2, wait.count());
    assertEquals(1000.0, wait.totalTime(TimeUnit.MILLISECONDS));
    assertEquals(1000.0, wait.max(TimeUnit.MILLISECONDS));
    assertEquals(0.0, gauge(registry, BackoffMetrics.IN_BACKOFF, "budgeted"));
    assertEquals("budgeted", wait.getId().getTag(BackoffMetrics.NAME_TAG));
    kit.testKit().stop(a);
    kit.testKit().stop(b);
  }

  @Test
  void resetIsCounted() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        POLICY.withListener(boundListener(registry, "resets")).withListener(events.ref()::tell);
    TestProbe<String> p = kit.createTestProbe();
    ActorRef<String> a = kit.spawn(BackoffSupervisor.wrap(worker(p.ref()), policy));
    p.expectMessage("started");
    a.tell("fail");
    p.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(100));
    p.expectMessage("started");
    assertEquals(0.0, count(registry, BackoffMetrics.RESETS, "resets"));
    kit.time().timePasses(Duration.ofSeconds(5));
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    events.expectMessageClass(BackoffEvent.Restarted.class);
    events.expectMessageClass(BackoffEvent.BackoffReset.class);
    assertEquals(1.0, count(registry, BackoffMetrics.RESETS, "resets"));
    kit.testKit().stop(a);
  }

  @Test
  void oneBinderGivesTheSameListenerPerName_andItsOwnPerOtherNames() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = new BackoffMetrics();
    metrics.bindTo(registry);
    BackoffListener one = metrics.listener("w");
    assertSame(one, metrics.listener("w"));
    assertNotSame(one, metrics.listener("v"));
    assertEquals(2, registry.find(BackoffMetrics.IN_BACKOFF).gauges().size());
  }

  @Test
  void closeRemovesEveryMeterItRegistered() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = new BackoffMetrics(Tags.of("service", "shop"));
    metrics.bindTo(registry);
    metrics.listener("w");
    metrics.listener("v");
    assertEquals(20, registry.getMeters().size()); // 10 per name, one give-ups counter per reason
    metrics.close();
    assertEquals(0, registry.getMeters().size());
  }

  @Test
  void aBinderIsBoundToOneRegistry() {
    BackoffMetrics metrics = new BackoffMetrics();
    assertEquals(
        "BackoffMetrics must be bound to a registry first (bindTo)",
        assertThrows(IllegalStateException.class, () -> metrics.listener("w")).getMessage());
    metrics.bindTo(new SimpleMeterRegistry());
    assertThrows(IllegalStateException.class, () -> metrics.bindTo(new SimpleMeterRegistry()));
  }

  @Test
  void droppedRegistriesAreGarbageCollected() throws Exception {
    // 30 registries: a leak that shows only in a race (see below) is then caught far more often
    List<java.lang.ref.WeakReference<MeterRegistry>> refs = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      refs.add(dropAfterUse());
    }
    // up to 10 s: close() stops the budget watcher, which unsubscribes itself from the event stream
    // asynchronously; on a busy machine that can take more than a second; the loop ends as soon as
    // every registry is collected. (A watcher that relied on the event stream's own clean-up could
    // stay subscribed when it stopped right after subscribing, keeping its registry: this test
    // caught that.)
    for (int i = 0; i < 200 && refs.stream().anyMatch(r -> r.get() != null); i++) {
      System.gc();
      byte[][] pressure = new byte[64][];
      for (int k = 0; k < pressure.length; k++) {
        pressure[k] = new byte[64 * 1024];
      }
      Thread.sleep(50);
    }
    assertEquals(
        0,
        refs.stream().filter(r -> r.get() != null).count(),
        "registries still reachable, of " + refs.size());
  }

  /** A registry used by metrics, a listener, a policy and a budget watcher, then dropped. */
  private static java.lang.ref.WeakReference<MeterRegistry> dropAfterUse() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = new BackoffMetrics();
    metrics.bindTo(registry);
    BackoffPolicy policy =
        POLICY.withListener(metrics.listener("gc")).withListener(boundListener(registry, "second"));
    TestProbe<String> p = kit.createTestProbe();
    ActorRef<String> a = kit.spawn(BackoffSupervisor.wrap(worker(p.ref()), policy));
    p.expectMessage("started");
    metrics.bindBudgets(kit.system());
    metrics.close();
    kit.testKit().stop(a);
    return new java.lang.ref.WeakReference<>(registry);
  }

  @Test
  void adaptiveBudgetGaugesFollowTheBudgetsEvents() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = new BackoffMetrics();
    metrics.bindTo(registry);
    metrics.bindBudgets(kit.system());
    TestProbe<String> wait = kit.createTestProbe();
    wait.expectNoMessage(Duration.ofMillis(200)); // the watcher subscribes
    var events = kit.system().eventStream();
    events.tell(
        new org.apache.pekko.actor.typed.eventstream.EventStream.Publish<>(
            new dev.supervision.backoff.BudgetEvent.StateChanged(
                "db",
                dev.supervision.backoff.rate.AdaptiveRateController.State.STEADY,
                dev.supervision.backoff.rate.AdaptiveRateController.State.HOLDING,
                dev.supervision.backoff.rate.AdaptiveRateController.Reason.FAILURES)));
    events.tell(
        new org.apache.pekko.actor.typed.eventstream.EventStream.Publish<>(
            new dev.supervision.backoff.BudgetEvent.Probe("db", 1)));
    events.tell(
        new org.apache.pekko.actor.typed.eventstream.EventStream.Publish<>(
            new dev.supervision.backoff.BudgetEvent.RateChanged(
                "db",
                1131,
                900,
                1000,
                dev.supervision.backoff.rate.AdaptiveRateController.Reason.LOSS)));
    wait.awaitAssert(
        () -> {
          assertEquals(
              1.0,
              registry
                  .get(BackoffMetrics.BUDGET_STATE)
                  .tag(BackoffMetrics.BUDGET_TAG, "db")
                  .gauge()
                  .value());
          assertEquals(
              1.0,
              registry
                  .get(BackoffMetrics.BUDGET_PROBES)
                  .tag(BackoffMetrics.BUDGET_TAG, "db")
                  .counter()
                  .count());
          assertEquals(
              900.0,
              registry
                  .get(BackoffMetrics.BUDGET_RATE)
                  .tag(BackoffMetrics.BUDGET_TAG, "db")
                  .gauge()
                  .value());
          assertEquals(
              1000.0,
              registry
                  .get(BackoffMetrics.BUDGET_GOODPUT)
                  .tag(BackoffMetrics.BUDGET_TAG, "db")
                  .gauge()
                  .value());
          return null;
        });
    metrics.close();
    assertEquals(0, registry.getMeters().size());
  }

  private static io.micrometer.core.instrument.search.RequiredSearch budgetMeter(
      MeterRegistry r, String meter, String budget) {
    return r.get(meter).tag(BackoffMetrics.BUDGET_TAG, budget);
  }

  /** Metrics bound to {@code registry} and to the kit's budgets. */
  private static BackoffMetrics boundToBudgets(MeterRegistry registry, Tags tags) {
    BackoffMetrics metrics = new BackoffMetrics(tags);
    metrics.bindTo(registry);
    metrics.bindBudgets(kit.system());
    return metrics;
  }

  /** A started worker supervised with {@code policy}; its probe gets "started" on each start. */
  private static ActorRef<String> started(TestProbe<String> p, BackoffPolicy policy) {
    ActorRef<String> a = kit.spawn(BackoffSupervisor.wrap(worker(p.ref()), policy));
    p.expectMessage("started");
    return a;
  }

  @Test
  void budgetGaugesAppearWhenTheFirstActorOfTheBudgetStarts_steadyBeforeAnythingFails() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = boundToBudgets(registry, Tags.of("service", "shop"));
    // at once after bindBudgets: the watcher is subscribed before bindBudgets returns
    TestProbe<String> p = kit.createTestProbe();
    ActorRef<String> a = started(p, POLICY.withBudget(RestartBudget.adaptive("healthy-db")));
    // the budget's meters are registered one after another on the watcher's thread: wait for all
    p.awaitAssert(
        () -> {
          assertEquals(
              0.0,
              budgetMeter(registry, BackoffMetrics.BUDGET_STATE, "healthy-db").gauge().value());
          assertTrue(
              Double.isNaN(
                  budgetMeter(registry, BackoffMetrics.BUDGET_RATE, "healthy-db").gauge().value()));
          assertTrue(
              Double.isNaN(
                  budgetMeter(registry, BackoffMetrics.BUDGET_GOODPUT, "healthy-db")
                      .gauge()
                      .value()));
          assertEquals(
              0.0,
              budgetMeter(registry, BackoffMetrics.BUDGET_PROBES, "healthy-db").counter().count());
          return null;
        });
    // the budget's tags: budget and the extra tags; no name (a budget is shared by every name)
    List<String> ids = new ArrayList<>();
    registry
        .getMeters()
        .forEach(
            m -> {
              ids.add(m.getId().getName());
              assertEquals("healthy-db", m.getId().getTag(BackoffMetrics.BUDGET_TAG));
              assertEquals("shop", m.getId().getTag("service"));
              assertEquals(null, m.getId().getTag(BackoffMetrics.NAME_TAG), m.getId().toString());
            });
    assertEquals(
        java.util.Set.of(
            BackoffMetrics.BUDGET_STATE,
            BackoffMetrics.BUDGET_RATE,
            BackoffMetrics.BUDGET_GOODPUT,
            BackoffMetrics.BUDGET_PROBES),
        java.util.Set.copyOf(ids));
    assertEquals(4, ids.size());
    kit.testKit().stop(a);
    metrics.close();
    assertEquals(0, registry.getMeters().size());
  }

  @Test
  void aFixedBudgetGetsNoBudgetGauges() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = boundToBudgets(registry, Tags.empty());
    TestProbe<String> p = kit.createTestProbe();
    ActorRef<String> a =
        started(p, POLICY.withBudget(RestartBudget.of("fixed-db", 10, Duration.ofSeconds(1))));
    p.expectNoMessage(Duration.ofMillis(300));
    assertEquals(0, registry.getMeters().size());
    kit.testKit().stop(a);
    metrics.close();
  }

  @Test
  void aReleasedBudgetUsedAgainStartsSteadyAgain() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = boundToBudgets(registry, Tags.empty());
    String budget = "released-db";
    BackoffPolicy policy = POLICY.withBudget(RestartBudget.adaptive(budget));
    TestProbe<String> p = kit.createTestProbe();
    ActorRef<String> a = started(p, policy);
    p.awaitAssert(() -> budgetMeter(registry, BackoffMetrics.BUDGET_STATE, budget).gauge());
    // the old gate reports holding (as its controller would), then the budget is released
    kit.system()
        .eventStream()
        .tell(
            new org.apache.pekko.actor.typed.eventstream.EventStream.Publish<>(
                new dev.supervision.backoff.BudgetEvent.StateChanged(
                    budget,
                    dev.supervision.backoff.rate.AdaptiveRateController.State.STEADY,
                    dev.supervision.backoff.rate.AdaptiveRateController.State.HOLDING,
                    dev.supervision.backoff.rate.AdaptiveRateController.Reason.FAILURES)));
    p.awaitAssert(
        () -> {
          assertEquals(
              1.0, budgetMeter(registry, BackoffMetrics.BUDGET_STATE, budget).gauge().value());
          return null;
        });
    kit.testKit().stop(a);
    dev.supervision.backoff.RestartBudgets.get(kit.system()).release(budget);
    p.awaitAssert(
        () -> {
          assertTrue(
              !dev.supervision.backoff.RestartBudgets.get(kit.system()).names().contains(budget));
          return null;
        });
    ActorRef<String> b = started(p, policy);
    p.awaitAssert( // the meters are registered one after another on the watcher's thread
        () -> {
          assertEquals(
              0.0, budgetMeter(registry, BackoffMetrics.BUDGET_STATE, budget).gauge().value());
          assertTrue(
              Double.isNaN(
                  budgetMeter(registry, BackoffMetrics.BUDGET_RATE, budget).gauge().value()));
          return null;
        });
    kit.testKit().stop(b);
    metrics.close();
  }

  @Test
  void extraTagsAreOnEveryMeter() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = new BackoffMetrics(Tags.of("service", "shop"));
    metrics.bindTo(registry);
    metrics.listener("w");
    registry
        .getMeters()
        .forEach(
            m -> {
              assertEquals("shop", m.getId().getTag("service"), m.getId().toString());
              assertEquals("w", m.getId().getTag(BackoffMetrics.NAME_TAG), m.getId().toString());
            });
    assertEquals(10, registry.getMeters().size()); // one give-ups counter per reason
  }

  @Test
  void badArgumentsAreNamed() {
    BackoffMetrics metrics = new BackoffMetrics();
    assertEquals(
        "registry must not be null",
        assertThrows(NullPointerException.class, () -> metrics.bindTo(null)).getMessage());
    metrics.bindTo(new SimpleMeterRegistry());
    assertEquals(
        "name must not be null",
        assertThrows(NullPointerException.class, () -> metrics.listener(null)).getMessage());
    assertEquals(
        "name must not be blank but was \" \"",
        assertThrows(IllegalArgumentException.class, () -> metrics.listener(" ")).getMessage());
    assertEquals(
        "tags must not use the key budget (reserved) but had tag(budget=x)",
        assertThrows(
                IllegalArgumentException.class, () -> new BackoffMetrics(Tags.of("budget", "x")))
            .getMessage());
    assertEquals(
        "tags must not use the key name (reserved) but had tag(name=x)",
        assertThrows(IllegalArgumentException.class, () -> new BackoffMetrics(Tags.of("name", "x")))
            .getMessage());
  }
}
