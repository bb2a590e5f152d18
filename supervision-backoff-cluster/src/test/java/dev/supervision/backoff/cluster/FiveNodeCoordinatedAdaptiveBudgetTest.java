package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Five cluster nodes in one JVM (Artery on 127.0.0.1), 100 actors placed 50/20/10/10/10 behind one
 * coordinated cluster-wide adaptive budget, all depending on one database that is down for 3 s and
 * then serves 20 calls per 100 ms window. The node that probes for the cluster (the smallest uid)
 * is killed during the ramp and downed from a survivor. Runs once in real time; the tests check the
 * recorded facts (test code may read the clock; the library does not).
 */
final class FiveNodeCoordinatedAdaptiveBudgetTest {

  static final int[] PLACEMENT = {50, 20, 10, 10, 10};
  static final int WINDOW_CAPACITY = 20;
  static final long WINDOW_NANOS = 100_000_000L;
  static final String NAME = "five-node-db";
  static final RestartBudget BUDGET = RestartBudget.adaptive(NAME).clusterWide();

  static final List<ActorSystem<Void>> nodes = new ArrayList<>();
  static final AtomicBoolean up = new AtomicBoolean(false);
  static final Map<Long, AtomicInteger> offered = new ConcurrentHashMap<>();
  static final AtomicInteger callsWhileDown = new AtomicInteger();
  static final AtomicInteger[] recovered = new AtomicInteger[PLACEMENT.length];
  static final Set<Integer> probingNodes = ConcurrentHashMap.newKeySet();
  static final AtomicInteger probes = new AtomicInteger();
  static volatile boolean outageOver;
  static int killed = -1;
  static long t0;
  static int callsBeforeHolding;
  static long outageEndAt;
  static long backAt;

  static boolean call() {
    long window = (System.nanoTime() - t0) / WINDOW_NANOS;
    int n = offered.computeIfAbsent(window, w -> new AtomicInteger()).incrementAndGet();
    if (!up.get()) {
      callsWhileDown.incrementAndGet();
      return false;
    }
    return n <= WINDOW_CAPACITY;
  }

  static Behavior<Void> cell(int node) {
    return Behaviors.setup(
        ctx -> {
          if (!call()) {
            throw new IllegalStateException("database unavailable");
          }
          recovered[node].incrementAndGet();
          return Behaviors.empty();
        });
  }

  @BeforeAll
  static void runScenario() throws Exception {
    for (int i = 0; i < PLACEMENT.length; i++) {
      recovered[i] = new AtomicInteger();
    }
    nodes.addAll(
        TestNodes.start(
            PLACEMENT.length, "five-nodes", AdaptiveClusterBudgetMultiNodeTest.config()));
    TestNodes.joinTheFirst(nodes, Duration.ofSeconds(60));
    for (int i = 0; i < nodes.size(); i++) {
      int index = i;
      ActorSystem<Void> node = nodes.get(i);
      ActorRef<BudgetEvent> collector =
          node.systemActorOf(
              Behaviors.receive(BudgetEvent.class)
                  .onAnyMessage(
                      e -> {
                        if (e instanceof BudgetEvent.Probe && !outageOver) {
                          probingNodes.add(index);
                          probes.incrementAndGet();
                        }
                        return Behaviors.same();
                      })
                  .build(),
              "budget-events",
              Props.empty());
      node.eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, collector));
      RestartBudgets.get(node).gate(BUDGET); // the gate and its coordination start
    }
    // every node has every node's first line before the outage
    TestNodes.awaitEveryLine(nodes, NAME);
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2))
            .withBudget(BUDGET)
            .withLoggingEnabled(false);
    t0 = System.nanoTime();
    for (int i = 0; i < nodes.size(); i++) {
      for (int a = 0; a < PLACEMENT[i]; a++) {
        nodes
            .get(i)
            .systemActorOf(BackoffSupervisor.wrap(cell(i), policy), "cell-" + a, Props.empty());
      }
    }
    // the calls that count start when every node holds: before, a steady gate lets restarts through
    TestNodes.awaitEveryGate(
        nodes, NAME, dev.supervision.backoff.spi.AdaptiveRateController.State.HOLDING);
    callsBeforeHolding = callsWhileDown.get();
    Thread.sleep(3000); // the outage, in real time
    outageOver = true;
    outageEndAt = System.nanoTime();
    up.set(true);
    // the ramp has begun: kill the node that probes for the cluster (the smallest uid)
    TestNodes.await(
        Duration.ofSeconds(30),
        () -> java.util.Arrays.stream(recovered).mapToInt(AtomicInteger::get).sum() >= 5);
    killed = 0;
    for (int i = 1; i < nodes.size(); i++) {
      if (Cluster.get(nodes.get(i)).selfMember().uniqueAddress().longUid()
          < Cluster.get(nodes.get(killed)).selfMember().uniqueAddress().longUid()) {
        killed = i;
      }
    }
    Address gone = Cluster.get(nodes.get(killed)).selfMember().address();
    nodes.get(killed).terminate();
    nodes.get(killed).getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    int survivor = killed == 0 ? 1 : 0;
    Cluster.get(nodes.get(survivor)).manager().tell(new Down(gone));
    TestNodes.await(
        Duration.ofSeconds(60),
        () -> {
          for (int i = 0; i < PLACEMENT.length; i++) {
            if (i != killed && recovered[i].get() < PLACEMENT[i]) {
              return false;
            }
          }
          return true;
        });
    backAt = System.nanoTime();
  }

  @AfterAll
  static void shutdown() throws Exception {
    TestNodes.terminate(nodes);
  }

  /**
   * One prober for the cluster: once every node holds, during the 3 s that follow one node alone
   * probes at most about 10 times (100 ms after holding, then 300-400 ms apart), and the cluster is
   * held to that, whatever the number of nodes; all probes come from one node.
   */
  @Test
  void duringTheOutage_theClusterProbesLikeOneNode() {
    int afterFirstFailures = callsWhileDown.get() - callsBeforeHolding;
    assertTrue(
        afterFirstFailures <= 10,
        "calls while down after the first failures: " + afterFirstFailures);
    assertEquals(
        1, probingNodes.size(), "nodes that probed: " + probingNodes + ", probes " + probes);
  }

  @Test
  void afterTheOutage_everyActorOfTheSurvivorsIsBack_withoutKnockingTheDatabaseOver() {
    for (int i = 0; i < PLACEMENT.length; i++) {
      if (i != killed) {
        assertEquals(PLACEMENT[i], recovered[i].get(), "node " + i);
      }
    }
    long outageWindow = 3_000_000_000L / WINDOW_NANOS;
    int busiest = TestNodes.busiestWindowAfter(offered, outageWindow);
    System.out.printf(
        "five nodes: %d calls while down once every node held, %d probes from nodes %s,"
            + " busiest window after the outage %d (capacity %d), survivors back %.2f s after"
            + " the outage, node %d killed%n",
        callsWhileDown.get() - callsBeforeHolding,
        probes.get(),
        probingNodes,
        busiest,
        WINDOW_CAPACITY,
        (backAt - outageEndAt) / 1e9,
        killed);
    assertTrue(
        busiest <= 3 * WINDOW_CAPACITY, "busiest window after the outage offered " + busiest);
  }
}
