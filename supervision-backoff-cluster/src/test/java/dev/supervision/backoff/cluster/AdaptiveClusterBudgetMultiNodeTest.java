package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three cluster nodes in one JVM (Artery on 127.0.0.1) each run 40 actors behind one cluster-wide
 * adaptive budget, all depending on one database that is down for 2 s and then serves 20 calls per
 * 100 ms window (200 per second; a window offered more than 3 x that would knock a real one over).
 * One learner (a cluster singleton) learns from every node's outcomes and leases each node its
 * permits. The scenario runs once, in real time; the
 * tests check its recorded facts (test code may read the clock; the library does not).
 */
final class AdaptiveClusterBudgetMultiNodeTest {

  static final int NODES = 3;
  static final int PER_NODE = 40;
  static final int WINDOW_CAPACITY = 20;
  static final long WINDOW_NANOS = 100_000_000L;
  static final RestartBudget BUDGET = RestartBudget.adaptive("shared-db-adaptive").clusterWide();

  static final List<ActorSystem<Void>> nodes = new ArrayList<>();
  static final AtomicBoolean up = new AtomicBoolean(false);
  static final Map<Long, AtomicInteger> offered = new ConcurrentHashMap<>();
  static final AtomicInteger callsWhileDown = new AtomicInteger();
  static final AtomicInteger failedAfterOutage = new AtomicInteger();
  static final AtomicInteger recovered = new AtomicInteger();
  static final ConcurrentLinkedQueue<BudgetEvent> events = new ConcurrentLinkedQueue<>();
  static final List<State> statesDuringOutage = new ArrayList<>();
  static long t0;
  static long outageEnd;
  static long recoveredAt;

  static Config config() {
    return ConfigFactory.parseString(TestNodes.MANY).withFallback(ConfigFactory.load());
  }

  /** The database: down, or up with a capacity per 100 ms window of real time. */
  static boolean call() {
    long window = (System.nanoTime() - t0) / WINDOW_NANOS;
    int n = offered.computeIfAbsent(window, w -> new AtomicInteger()).incrementAndGet();
    if (!up.get()) {
      callsWhileDown.incrementAndGet();
      return false;
    }
    if (n > WINDOW_CAPACITY) {
      failedAfterOutage.incrementAndGet();
      return false;
    }
    return true;
  }

  static Behavior<Void> cell() {
    return Behaviors.setup(
        ctx -> {
          if (!call()) {
            throw new IllegalStateException("database unavailable");
          }
          if (recovered.incrementAndGet() == NODES * PER_NODE) {
            recoveredAt = System.nanoTime();
          }
          return Behaviors.empty();
        });
  }

  @BeforeAll
  static void runScenario() throws Exception {
    nodes.addAll(TestNodes.start(NODES, "adaptive-cluster", config()));
    TestNodes.joinTheFirst(nodes, Duration.ofSeconds(30));
    for (ActorSystem<Void> node : nodes) {
      ActorRef<BudgetEvent> collector =
          node.systemActorOf(
              Behaviors.receive(BudgetEvent.class)
                  .onAnyMessage(
                      e -> {
                        events.add(e);
                        return Behaviors.same();
                      })
                  .build(),
              "budget-events",
              Props.empty());
      node.eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, collector));
      RestartBudgets.get(node).gate(BUDGET); // the gate, its learner client, the learner
    }
    // the gate exists and holds a lease from the learner, which counts every node, before the herd
    // fails
    TestNodes.awaitEveryLease(nodes, BUDGET.getName());
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2))
            .withBudget(BUDGET)
            .withLoggingEnabled(false);
    t0 = System.nanoTime();
    for (ActorSystem<Void> node : nodes) {
      for (int i = 0; i < PER_NODE; i++) {
        node.systemActorOf(BackoffSupervisor.wrap(cell(), policy), "cell-" + i, Props.empty());
      }
    }
    // every node holds once the herd's first failures have reached it (however long the 120
    // starts take on a loaded machine), and still holds 1 s later, the database still down
    TestNodes.awaitEveryGate(nodes, BUDGET.getName(), State.HOLDING);
    Thread.sleep(1000); // the outage goes on, in real time
    for (ActorSystem<Void> node : nodes) {
      statesDuringOutage.add(TestNodes.state(node, BUDGET.getName()));
    }
    Thread.sleep(500);
    up.set(true);
    outageEnd = System.nanoTime();
    TestNodes.await(Duration.ofSeconds(60), () -> recovered.get() == NODES * PER_NODE);
  }

  @AfterAll
  static void shutdown() throws Exception {
    TestNodes.terminate(nodes);
  }

  @Test
  void everyNodeHoldsWhileTheDatabaseIsDown_lettingOnlyFewProbesThrough() {
    assertEquals(List.of(State.HOLDING, State.HOLDING, State.HOLDING), statesDuringOutage);
    int probes = (int) events.stream().filter(e -> e instanceof BudgetEvent.Probe).count();
    // the first failures are the 120 starts; after them only probes, spread over the three nodes
    assertTrue(
        callsWhileDown.get() - NODES * PER_NODE <= 10,
        "calls while down after the first failures: "
            + (callsWhileDown.get() - NODES * PER_NODE)
            + ", probes "
            + probes);
  }

  @Test
  void everyActorRecovers_neverOfferingAWindowMoreThanThreeTimesItsCapacity() {
    assertEquals(NODES * PER_NODE, recovered.get());
    long outageWindow = (outageEnd - t0) / WINDOW_NANOS;
    int busiest = TestNodes.busiestWindowAfter(offered, outageWindow);
    assertTrue(
        busiest <= 3 * WINDOW_CAPACITY, "busiest window after the outage offered " + busiest);
    double seconds = (recoveredAt - outageEnd) / 1e9;
    System.out.printf(
        "adaptive cluster: recovered in %.2f s (physical limit 0.6 s), busiest window %d, %d failed calls after the outage%n",
        seconds, busiest, failedAfterOutage.get());
    assertTrue(
        failedAfterOutage.get() <= NODES * PER_NODE,
        "failed after the outage: " + failedAfterOutage.get());
    // small herd: the time is mostly the nodes' probe intervals and slow start, not the capacity
    assertTrue(seconds <= 6, "recovered in " + seconds + " s");
  }
}
