package dev.supervision.backoff.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffTestKit;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The coordination gauges of a cluster-wide adaptive budget show its gate's status as it is now
 * (where the node stands with the budget's learner): they appear with the first status that has a
 * coordination, follow every later one within a poll (or at once after a {@link
 * BudgetEvent.CoordinationChanged}), count the leases lost (the node fell back on its own), and are
 * NaN once the budget has no gate. A local budget has none.
 */
final class CoordinationGaugesFollowTheGatesStatusTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static final List<String> COORDINATION_METERS =
      List.of(
          BackoffMetrics.BUDGET_COORDINATED,
          BackoffMetrics.BUDGET_SHARE,
          BackoffMetrics.BUDGET_PROBER,
          BackoffMetrics.BUDGET_CLUSTER_NODES,
          BackoffMetrics.BUDGET_CLUSTER_WAITING,
          BackoffMetrics.BUDGET_COORDINATION_LOSSES);

  private static double gauge(MeterRegistry r, String meter, String budget) {
    return r.get(meter).tag(BackoffMetrics.BUDGET_TAG, budget).gauge().value();
  }

  private static double losses(MeterRegistry r, String budget) {
    return r.get(BackoffMetrics.BUDGET_COORDINATION_LOSSES)
        .tag(BackoffMetrics.BUDGET_TAG, budget)
        .counter()
        .count();
  }

  /** Coordinated (1/0), share, prober (1/0), nodes in view, waiting over the cluster. */
  private static List<Double> shown(MeterRegistry r, String budget) {
    return List.of(
        gauge(r, BackoffMetrics.BUDGET_COORDINATED, budget),
        gauge(r, BackoffMetrics.BUDGET_SHARE, budget),
        gauge(r, BackoffMetrics.BUDGET_PROBER, budget),
        gauge(r, BackoffMetrics.BUDGET_CLUSTER_NODES, budget),
        gauge(r, BackoffMetrics.BUDGET_CLUSTER_WAITING, budget));
  }

  private static Set<String> meterNames(MeterRegistry r) {
    return r.getMeters().stream().map(m -> m.getId().getName()).collect(Collectors.toSet());
  }

  /** The coordination in the status of the budget's gate now (the budget must have a gate). */
  private static Optional<GateProtocol.Coordination> coordinationOf(String budget) {
    return RestartBudgets.get(kit.system())
        .status(budget)
        .toCompletableFuture()
        .join()
        .orElseThrow(() -> new AssertionError("no gate for " + budget))
        .coordination();
  }

  /** Where a node stands with the learner. */
  private static Optional<GateProtocol.Coordination> leased(
      boolean coordinated, double share, boolean prober, int inView, long waiting) {
    return Optional.of(new GateProtocol.Coordination(coordinated, share, prober, inView, waiting));
  }

  /**
   * The watcher is driven directly and the test answers its questions itself ({@link
   * AnsweredWatcher}), as the gate of a cluster-wide adaptive budget would: its status shows the
   * lease it holds, or its fallback.
   */
  @Test
  void theGaugesShowEachStatusOfTheGate_andCountTheLeasesLost() {
    String budget = "leased-db";
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AnsweredWatcher watcher = new AnsweredWatcher(kit, registry);
    ActorRef<Object> actor = watcher.actor;
    TestProbe<String> p = kit.createTestProbe();
    actor.tell(new BudgetEvent.Started(budget));
    p.awaitAssert(() -> registry.get(BackoffMetrics.BUDGET_PROBES).counter());

    // the first lease (the gate publishes the change): half of the learner's permits, another
    // node probes, 3 nodes, 40 waiting
    actor.tell(new BudgetEvent.CoordinationChanged(budget, true, false, 3));
    watcher.awaitQuestions(1);
    watcher.answer(1, status(budget, leased(true, 0.5, false, 3, 40)));
    p.awaitAssert(
        () -> {
          assertEquals(List.of(1.0, 0.5, 0.0, 3.0, 40.0), shown(registry, budget));
          return null;
        });
    // the coordination's tags: the budget, no name
    registry.getMeters().stream()
        .filter(m -> COORDINATION_METERS.contains(m.getId().getName()))
        .forEach(
            m -> {
              assertEquals(budget, m.getId().getTag(BackoffMetrics.BUDGET_TAG));
              assertNull(m.getId().getTag(BackoffMetrics.NAME_TAG), m.getId().toString());
            });
    assertTrue(
        meterNames(registry).containsAll(COORDINATION_METERS), meterNames(registry)::toString);

    // the share follows the leases with no event at all: the next poll shows it
    kit.time().timePasses(BudgetWatcher.POLL);
    watcher.awaitQuestions(2);
    watcher.answer(2, status(budget, leased(true, 0.25, false, 3, 90)));
    p.awaitAssert(
        () -> {
          assertEquals(List.of(1.0, 0.25, 0.0, 3.0, 90.0), shown(registry, budget));
          return null;
        });

    // the lease expires: the node is on its fallback, 1/3 of the budget, its own waiting only
    actor.tell(new BudgetEvent.CoordinationChanged(budget, false, false, 3));
    watcher.awaitQuestions(3);
    watcher.answer(3, status(budget, leased(false, 1.0 / 3, false, 3, 0)));
    p.awaitAssert(
        () -> {
          assertEquals(List.of(0.0, 1.0 / 3, 0.0, 3.0, 0.0), shown(registry, budget));
          assertEquals(1.0, losses(registry, budget));
          return null;
        });
    // a lease again, carrying the cluster's probe; then lost a second time
    actor.tell(new BudgetEvent.CoordinationChanged(budget, true, true, 3));
    watcher.awaitQuestions(4);
    watcher.answer(4, status(budget, leased(true, 1.0, true, 3, 10)));
    p.awaitAssert(
        () -> {
          assertEquals(List.of(1.0, 1.0, 1.0, 3.0, 10.0), shown(registry, budget));
          return null;
        });
    actor.tell(new BudgetEvent.CoordinationChanged(budget, false, false, 2));
    watcher.awaitQuestions(5);
    watcher.answer(5, status(budget, leased(false, 0.5, false, 2, 4)));
    p.awaitAssert(
        () -> {
          assertEquals(List.of(0.0, 0.5, 0.0, 2.0, 4.0), shown(registry, budget));
          assertEquals(2.0, losses(registry, budget));
          return null;
        });

    // the budget has no gate on this node any more: the gauges show nothing
    kit.time().timePasses(BudgetWatcher.POLL);
    watcher.awaitQuestions(6);
    watcher.answerNoGate(6);
    p.awaitAssert(
        () -> {
          for (double v : shown(registry, budget)) {
            assertTrue(Double.isNaN(v), () -> "no gate, no lease: " + shown(registry, budget));
          }
          return null;
        });
    watcher.stop();
  }

  @Test
  void aLocalAdaptiveBudgetHasNoCoordinationMeters() {
    String budget = "local-db";
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = new BackoffMetrics();
    metrics.bindTo(registry);
    metrics.bindBudgets(kit.system());
    TestProbe<String> p = kit.createTestProbe();
    RestartBudgets.get(kit.system()).gate(RestartBudget.adaptive(budget));
    Set<String> budgetMeters =
        Set.of(
            BackoffMetrics.BUDGET_STATE,
            BackoffMetrics.BUDGET_RATE,
            BackoffMetrics.BUDGET_GOODPUT,
            BackoffMetrics.BUDGET_PROBES);
    // the budget's meters are registered one after another on the watcher's thread: wait for all
    p.awaitAssert(
        () -> {
          assertTrue(
              meterNames(registry).containsAll(budgetMeters), meterNames(registry)::toString);
          return null;
        });
    // a local budget's status has no coordination, and such a status adds no meters
    // (aStatusWithoutCoordinationAddsNoMeters_theFirstWithOneAddsThemAll)
    assertEquals(Optional.empty(), coordinationOf(budget));
    assertEquals(budgetMeters, meterNames(registry));
    RestartBudgets.get(kit.system()).release(budget);
    metrics.close();
  }

  /**
   * The watcher is driven directly and the test answers its polls itself ({@link AnsweredWatcher}):
   * a message the test sends after an answer is handled after it, so each check below follows the
   * answer it is about.
   */
  @Test
  void aStatusWithoutCoordinationAddsNoMeters_theFirstWithOneAddsThemAll() {
    String budget = "polled-db";
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AnsweredWatcher watcher = new AnsweredWatcher(kit, registry);
    ActorRef<Object> actor = watcher.actor;
    TestProbe<String> p = kit.createTestProbe();
    // the Started event is handled after the watcher's set-up, which put its poll on the clock
    actor.tell(new BudgetEvent.Started(budget));
    p.awaitAssert(() -> registry.get(BackoffMetrics.BUDGET_PROBES).counter());

    for (int poll = 1; poll <= 2; poll++) {
      kit.time().timePasses(BudgetWatcher.POLL);
      int asked = poll;
      watcher.awaitQuestions(poll);
      watcher.answer(poll, status(budget, Optional.empty()));
      actor.tell(new BudgetEvent.Probe(budget, 1)); // handled after the answer
      p.awaitAssert(
          () -> {
            assertEquals(
                (double) asked, registry.get(BackoffMetrics.BUDGET_PROBES).counter().count());
            return null;
          });
      for (String meter : COORDINATION_METERS) {
        assertNull(registry.find(meter).meter(), meter + " after poll " + poll);
      }
    }

    kit.time().timePasses(BudgetWatcher.POLL);
    watcher.awaitQuestions(3);
    watcher.answer(
        3, status(budget, Optional.of(new GateProtocol.Coordination(true, 0.5, false, 2, 7))));
    p.awaitAssert(
        () -> {
          assertTrue(
              meterNames(registry).containsAll(COORDINATION_METERS),
              meterNames(registry)::toString);
          assertEquals(List.of(1.0, 0.5, 0.0, 2.0, 7.0), shown(registry, budget));
          return null;
        });
    watcher.stop();
  }

  private static GateProtocol.Status status(
      String budget, Optional<GateProtocol.Coordination> coordination) {
    return new GateProtocol.Status(
        budget, State.STEADY, Double.POSITIVE_INFINITY, Double.NaN, 0, coordination);
  }
}
