package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart budgets: validation, the rate across many actors, fairness, isolation, transparency. */
final class RestartBudgetTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration QUIET = Duration.ofMillis(150);
  static final AtomicInteger names = new AtomicInteger();

  /** A fresh budget name per test, since budgets live as long as the actor system. */
  static String fresh(String prefix) {
    return prefix + "-" + names.incrementAndGet();
  }

  static BackoffPolicy tinyBackoff() {
    return BackoffPolicy.exponential(Duration.ofMillis(1), Duration.ofMillis(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1));
  }

  static int waiting(String budget) throws Exception {
    return RestartBudgets.get(kit.system())
        .waiting(budget)
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
  }

  @Test
  void of_validatesEverySetting() {
    assertEquals(
        "name must not be null",
        assertThrows(
                NullPointerException.class, () -> RestartBudget.of(null, 1, Duration.ofSeconds(1)))
            .getMessage());
    assertEquals(
        "name must be non-blank but was \" \"",
        assertThrows(
                IllegalArgumentException.class,
                () -> RestartBudget.of(" ", 1, Duration.ofSeconds(1)))
            .getMessage());
    assertEquals(
        "permits must be >= 1 but was 0",
        assertThrows(
                IllegalArgumentException.class,
                () -> RestartBudget.of("db", 0, Duration.ofSeconds(1)))
            .getMessage());
    assertEquals(
        "period must be > 0 but was PT0S",
        assertThrows(IllegalArgumentException.class, () -> RestartBudget.of("db", 1, Duration.ZERO))
            .getMessage());
    assertEquals(
        "period must be >= PT0.01S but was PT0.001S",
        assertThrows(
                IllegalArgumentException.class,
                () -> RestartBudget.of("db", 1, Duration.ofMillis(1)))
            .getMessage());
    assertEquals(
        "burst must be >= 1 but was 0",
        assertThrows(
                IllegalArgumentException.class,
                () -> RestartBudget.of("db", 1, Duration.ofSeconds(1)).withBurst(0))
            .getMessage());
    assertEquals(
        "budget must not be null",
        assertThrows(NullPointerException.class, () -> tinyBackoff().withBudget(null))
            .getMessage());
  }

  @Test
  void defaultsAndValueSemantics() {
    RestartBudget.Fixed b = RestartBudget.of("orders-db", 200, Duration.ofSeconds(1));
    assertEquals(20, b.getBurst());
    assertEquals(1, RestartBudget.of("x", 5, Duration.ofSeconds(1)).getBurst());
    assertEquals(b, RestartBudget.of("orders-db", 200, Duration.ofSeconds(1)));
    assertNotEquals(b, b.withBurst(21));
    assertEquals("RestartBudget{name=orders-db, permits=200, period=PT1S, burst=20}", b.toString());
    assertEquals(b, tinyBackoff().withBudget(b).getBudget().orElseThrow());
    assertTrue(tinyBackoff().withBudget(b).withoutBudget().getBudget().isEmpty());
  }

  @Test
  void twoBudgetsWithTheSameNameAndOtherLimitsAreAnError() {
    String name = fresh("conflict");
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    budgets.gate(RestartBudget.of(name, 10, Duration.ofSeconds(1)));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> budgets.gate(RestartBudget.of(name, 20, Duration.ofSeconds(1))));
    assertEquals(
        "restart budget \""
            + name
            + "\" is already in use with other limits: "
            + "RestartBudget{name="
            + name
            + ", permits=10, period=PT1S, burst=1} (in use) vs "
            + "RestartBudget{name="
            + name
            + ", permits=20, period=PT1S, burst=2} (requested); one name, one set of limits",
        e.getMessage());
  }

  @Test
  void anActorWhosePolicyConflictsFailsToStartWithTheMessage() {
    String name = fresh("conflict-actor");
    RestartBudgets.get(kit.system()).gate(RestartBudget.of(name, 10, Duration.ofSeconds(1)));
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy conflicting =
        tinyBackoff().withBudget(RestartBudget.of(name, 99, Duration.ofSeconds(1)));
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), conflicting));
    probe.expectTerminated(actor);
    probe.expectNoMessage(QUIET); // never started
  }

  /**
   * 1,000 actors fail at once against a budget of 100 permits per second with a burst of 10. The
   * gate's arithmetic makes every window's count known under {@code ManualTime}: the full bucket
   * grants the burst (10) as soon as the 1 ms backoffs pass; the refill period is cut into {@code
   * min(100, 1 s / 100 ms) = 10} slices of 100 ms, each adding 100 / 10 = 10 tokens, on a
   * fixed-delay timer started by the first grant; so each further second fires exactly 10 slices
   * and restarts exactly 100 actors, until the last 90 need 9 slices of the tenth second.
   */
  @Test
  void theRateHoldsOverManyWindowsWithAThousandFailingActors() throws Exception {
    String name = fresh("rate");
    RestartBudget budget = RestartBudget.of(name, 100, Duration.ofSeconds(1)).withBurst(10);
    AtomicInteger scheduled = new AtomicInteger();
    AtomicInteger asking = new AtomicInteger();
    AtomicInteger restarted = new AtomicInteger();
    BackoffPolicy policy =
        tinyBackoff()
            .withBudget(budget)
            .withLoggingEnabled(false)
            .withListener(
                e -> {
                  if (e instanceof BackoffEvent.RestartScheduled) {
                    scheduled.incrementAndGet();
                  } else if (e instanceof BackoffEvent.WaitingForPermit) {
                    asking.incrementAndGet();
                  } else if (e instanceof BackoffEvent.Restarted) {
                    restarted.incrementAndGet();
                  }
                });
    Behavior<String> cell =
        Behaviors.setup(
            ctx ->
                Behaviors.receive(String.class)
                    .onMessageEquals(
                        "fail",
                        () -> {
                          throw new TestChild.Boom("outage");
                        })
                    .build());
    List<ActorRef<String>> cells = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      cells.add(kit.spawn(BackoffSupervisor.wrap(cell, policy)));
    }
    cells.forEach(c -> c.tell("fail"));
    awaitCount(scheduled, 1000); // every failure handled: 1000 restart ticks due at +1 ms
    kit.time().timePasses(Duration.ofMillis(1));
    awaitCount(asking, 1000); // every actor has sent its request to the gate
    int waitingBefore = waiting(name); // a round trip: the gate has seen every request
    List<Integer> perWindow = new ArrayList<>(List.of(1000 - waitingBefore)); // the burst
    for (int window = 1; window <= 10; window++) {
      kit.time().timePasses(Duration.ofSeconds(1));
      // the slices' ticks are in the gate's mailbox before this query: its answer counts their
      // grants
      int waitingAfter = waiting(name);
      int granted = waitingBefore - waitingAfter;
      awaitCount(restarted, 1000 - waitingAfter);
      perWindow.add(granted);
      waitingBefore = waitingAfter;
    }
    assertEquals(
        List.of(10, 100, 100, 100, 100, 100, 100, 100, 100, 100, 90),
        perWindow,
        "restarts per window (the first is the burst)");
    assertEquals(1000, restarted.get(), "one restart per actor, each after its grant");
  }

  /** Waits until the counter reaches {@code target} (the actors process their grants asynchronously). */
  private static void awaitCount(AtomicInteger counter, int target) {
    probeAwait(
        () -> assertTrue(counter.get() >= target, "reached " + counter.get() + " of " + target));
  }

  private interface Check {
    void run() throws Exception;
  }

  private static void probeAwait(Check check) {
    kit.createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              try {
                check.run();
              } catch (Exception e) {
                throw new AssertionError(e);
              }
              return null;
            });
  }

  @Test
  void waitingActorsAreServedInOrderAndAStoppedOneLeavesTheQueue() throws Exception {
    String name = fresh("fifo");
    RestartBudget budget = RestartBudget.of(name, 1, Duration.ofSeconds(1)).withBurst(1);
    List<BackoffEvent> events = new CopyOnWriteArrayList<>();
    BackoffPolicy policy = tinyBackoff().withBudget(budget).withListener(events::add);
    TestProbe<String> probe = kit.createTestProbe();
    List<ActorRef<String>> actors = new ArrayList<>();
    for (String n : List.of("a", "b", "c", "d")) {
      ActorRef<String> a = kit.spawn(BackoffSupervisor.wrap(named(n, probe.ref()), policy));
      probe.expectMessage(n + "-started");
      actors.add(a);
    }
    for (ActorRef<String> a : actors) { // they fail and ask for permits one after the other
      a.tell("fail");
      int failed = actors.indexOf(a) + 1;
      probe.awaitAssert(
          () -> { // the failure is handled before the clock moves
            assertEquals(
                failed,
                events.stream().filter(e -> e instanceof BackoffEvent.RestartScheduled).count());
            return null;
          });
      kit.time().timePasses(Duration.ofMillis(1));
      probe.awaitAssert(
          () -> {
            assertEquals(
                actors.indexOf(a) + 1,
                events.stream().filter(e -> e instanceof BackoffEvent.WaitingForPermit).count());
            return null;
          });
    }
    probe.expectMessage("a-started"); // the one permit of the bucket
    assertEquals(3, waiting(name));
    kit.testKit().stop(actors.get(1)); // b gives up its place
    probe.awaitAssert(
        () -> {
          try {
            assertEquals(2, waiting(name));
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          return null;
        });
    kit.time().timePasses(Duration.ofSeconds(1));
    probe.expectMessage("c-started"); // c, not the stopped b
    probe.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofSeconds(1));
    probe.expectMessage("d-started");
    assertEquals(0, waiting(name));
  }

  private static Behavior<String> named(String name, ActorRef<String> probe) {
    return Behaviors.setup(
        ctx -> {
          probe.tell(name + "-started");
          return Behaviors.receive(String.class)
              .onMessageEquals(
                  "fail",
                  () -> {
                    throw new TestChild.Boom(name);
                  })
              .build();
        });
  }

  @Test
  void actorsOfDifferentBudgetsDoNotAffectEachOther() {
    RestartBudget busy = RestartBudget.of(fresh("busy"), 1, Duration.ofSeconds(10)).withBurst(1);
    RestartBudget idle = RestartBudget.of(fresh("idle"), 1, Duration.ofSeconds(10)).withBurst(1);
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> scheduled = kit.createTestProbe();
    BackoffListener reportScheduled =
        e -> {
          if (e instanceof BackoffEvent.RestartScheduled) {
            scheduled.ref().tell(e);
          }
        };
    List<ActorRef<String>> busyActors = new ArrayList<>();
    for (String n : List.of("busy1", "busy2", "busy3")) {
      busyActors.add(
          kit.spawn(
              BackoffSupervisor.wrap(
                  named(n, probe.ref()),
                  tinyBackoff().withBudget(busy).withListener(reportScheduled))));
      probe.expectMessage(n + "-started");
    }
    ActorRef<String> other =
        kit.spawn(
            BackoffSupervisor.wrap(
                named("other", probe.ref()),
                tinyBackoff().withBudget(idle).withListener(reportScheduled)));
    probe.expectMessage("other-started");
    busyActors.forEach(a -> a.tell("fail"));
    scheduled.receiveSeveralMessages(3); // all three failures handled before the clock moves
    kit.time().timePasses(Duration.ofMillis(1));
    String first =
        probe.receiveMessage(); // one of them gets the permit; the other two wait 10 s each
    assertTrue(first.startsWith("busy"), first);
    other.tell("fail");
    scheduled.receiveMessage();
    kit.time().timePasses(Duration.ofMillis(1));
    probe.expectMessage("other-started"); // its own budget is full
    probe.expectNoMessage(QUIET); // and the two other busy actors still wait
  }

  @Test
  void aBudgetWithPlentyOfPermitsChangesNothingAboutTheDelays() {
    RestartBudget plenty = RestartBudget.of(fresh("plenty"), 1000, Duration.ofSeconds(1));
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withResetAfter(Duration.ofHours(1))
            .withBudget(plenty);
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    for (long ms : new long[] {100, 200, 400, 800, 1000}) {
      actor.tell("fail");
      probe.expectMessage("preRestart");
      kit.time().timePasses(Duration.ofMillis(ms - 1));
      probe.expectNoMessage(QUIET);
      kit.time().timePasses(Duration.ofMillis(1));
      probe.expectMessage("started");
    }
  }

  @Test
  void waitingForAPermitIsReportedAndLogged() {
    String name = fresh("visible");
    RestartBudget budget = RestartBudget.of(name, 1, Duration.ofSeconds(1)).withBurst(1);
    List<BackoffEvent> events = new CopyOnWriteArrayList<>();
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()),
                tinyBackoff().withBudget(budget).withListener(events::add)),
            "visible");
    probe.expectMessage("started");
    org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit.debug(
            "Supervised actor [pekko://RestartBudgetTest/user/visible] waits for a permit of restart budget ["
                + name
                + "] (attempt 1)")
        .expect(
            kit.system(),
            () -> {
              actor.tell("fail");
              probe.expectMessage("preRestart");
              kit.time().timePasses(Duration.ofMillis(1));
              probe.expectMessage("started");
              return null;
            });
    probe.awaitAssert(
        () -> {
          assertEquals(
              List.of("RestartScheduled", "WaitingForPermit", "PermitGranted", "Restarted"),
              events.stream().map(e -> e.getClass().getSimpleName()).toList());
          return null;
        });
    assertEquals(new BackoffEvent.WaitingForPermit(actor, 1, name), events.get(1));
  }

  @Test
  void aClusterWideBudgetWithoutTheClusterModuleFailsTheStartWithAMessage() {
    RestartBudget cluster =
        RestartBudget.of(fresh("cluster"), 10, Duration.ofSeconds(1)).clusterWide();
    assertTrue(cluster.isClusterWide());
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> RestartBudgets.get(kit.system()).gate(cluster));
    assertTrue(
        e.getMessage()
            .endsWith(
                "is cluster-wide, which needs the module "
                    + "dev.supervision:supervision-backoff-cluster on the classpath"),
        e.getMessage());
  }

  @Test
  void aGateToldItsShareGrantsThatShareOfThePermits() {
    record Grant(int n) implements org.apache.pekko.actor.typed.Signal {}
    RestartBudget budget =
        RestartBudget.of(fresh("share"), 100, Duration.ofSeconds(1)).withBurst(10);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(dev.supervision.backoff.internal.BudgetGate.create(budget, 1));
    gate.tell(new GateProtocol.SetShare(4)); // 25 per second, burst 2.5
    TestProbe<Integer> granted = kit.createTestProbe();
    ActorRef<Object> requester =
        kit.spawn(
            Behaviors.receive(Object.class)
                .onSignal(
                    Grant.class,
                    g -> {
                      granted.ref().tell(g.n());
                      return Behaviors.same();
                    })
                .build());
    for (int i = 0; i < 200; i++) {
      gate.tell(new GateProtocol.Acquire(requester, new Grant(i)));
    }
    // the bucket holds a quarter of the burst (2.5 tokens): two grants, in order, and no third
    assertEquals(List.of(0, 1), granted.receiveSeveralMessages(2));
    granted.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofSeconds(2));
    // a quarter of 100 per second for 2 s: 20 slices of 100 ms, 2.5 tokens each, 50 grants
    List<Integer> next = granted.receiveSeveralMessages(50);
    assertEquals(2, next.get(0));
    assertEquals(51, next.get(49));
    granted.expectNoMessage(QUIET);
  }
}
