package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Four cluster nodes in one JVM (Artery on 127.0.0.1, Pekko's default Distributed Data settings),
 * 300 actors placed 50/20/20/10 % behind one coordinated cluster-wide adaptive budget, all
 * depending on one database that is down for 2 s and then serves 10 calls per 100 ms window (N/C =
 * 3 s; it falls over for 1 s when a window is offered more than 3 x that). When the ramp has begun,
 * a fifth node joins; once it is coordinated, the actors of the biggest node that are not back yet
 * (at most half a window's capacity, 5) move to it, as sharding hands entities to a new member: stopped where they were, started on
 * the new node. Runs once in real time; the tests check the recorded facts (test code may read the
 * clock; the library does not).
 *
 * <p>The bounds, from the design (docs/cluster.md, "Timing", for 5 nodes): a line reaches every
 * node within the settle time (1.5 s), and a line that is not quiet expires after the stale window
 * (4.5 s). The joining node writes its first line at its first round and has the others' lines
 * within a settle time of their next write (every heartbeat, 1 s, while they ramp), so it is
 * coordinated, and its line is in every other node's view, well within a stale window; the others
 * count it as joining meanwhile, so none of them decides alone. The database: the coordinated nodes
 * together grant at most what their measured goodputs support (about one window's capacity), and
 * the moved actors' first starts, which no budget gates (a start is not a restart), are at most
 * half a window's capacity more; their restarts then go through the new node's budget, which ramps
 * with the others at its share. That leaves more than a window's capacity for a loaded machine,
 * whose stalls can bunch two windows' calls into one: no window is offered more than 3 x its
 * capacity.
 */
final class ANodeJoiningDuringTheRampCoordinatesTest {

  static final int[] PLACEMENT = {150, 60, 60, 30};
  static final int ACTORS = 300;
  static final int WINDOW_CAPACITY = 10;

  /**
   * Half a window's capacity: the moved actors' first starts are not gated, and a loaded machine's
   * stalls bunch the gated calls of two windows into one.
   */
  static final int MOVED_AT_MOST = WINDOW_CAPACITY / 2;

  static final long WINDOW_NANOS = 100_000_000L;
  static final long FALLEN_FOR_NANOS = 1_000_000_000L;
  static final String NAME = "join-during-ramp-db";
  static final RestartBudget BUDGET = RestartBudget.adaptive(NAME).clusterWide();

  /** Late timers and messages on a loaded machine (2 shared cores, one kept busy). */
  static final long ALLOWANCE_NANOS = 2_000_000_000L;

  static final List<ActorSystem<Void>> nodes = new ArrayList<>();
  static final List<ActorRef<Host>> hosts = new ArrayList<>();
  static final AtomicBoolean up = new AtomicBoolean(false);
  static final Map<Long, AtomicInteger> offered = new ConcurrentHashMap<>();
  static final Map<Long, AtomicIntegerArray> byNode = new ConcurrentHashMap<>();
  static final Set<Integer> back = ConcurrentHashMap.newKeySet();
  static final ConcurrentLinkedQueue<Change> changes = new ConcurrentLinkedQueue<>();
  static final AtomicInteger knockedOver = new AtomicInteger();
  static volatile long fallenUntil;
  static long t0;
  static long outageEndAt;
  static long joinAt;
  static long joinerGateAt;
  static long joinerCoordinatedAt;
  static long everyViewHasFiveAt;
  static long backAt;
  static int moved;
  static ClusterCoordinator.Timing timing;

  /** A node's change of coordination, when the test saw it. */
  record Change(int node, long at, BudgetEvent.CoordinationChanged event) {}

  /** The commands of the actor that hosts a node's cells. */
  sealed interface Host {}

  record Start(int id) implements Host {}

  record StopCell(int id) implements Host {}

  /** The database: down, fallen over, or up with a capacity per 100 ms window of real time. */
  static boolean call(int node) {
    long now = System.nanoTime();
    long window = (now - t0) / WINDOW_NANOS;
    int n = offered.computeIfAbsent(window, w -> new AtomicInteger()).incrementAndGet();
    byNode
        .computeIfAbsent(window, w -> new AtomicIntegerArray(PLACEMENT.length + 1))
        .incrementAndGet(node);
    if (!up.get()) {
      return false;
    }
    if (n > 3 * WINDOW_CAPACITY && now > fallenUntil) {
      knockedOver.incrementAndGet();
      fallenUntil = now + FALLEN_FOR_NANOS;
    }
    return now > fallenUntil && n <= WINDOW_CAPACITY;
  }

  static Behavior<Void> cell(int id, int node) {
    return Behaviors.setup(
        ctx -> {
          if (!call(node)) {
            throw new IllegalStateException("database unavailable");
          }
          back.add(id);
          return Behaviors.empty();
        });
  }

  static Behavior<Host> host(int node, BackoffPolicy policy) {
    return Behaviors.setup(
        ctx -> {
          Map<Integer, ActorRef<Void>> cells = new ConcurrentHashMap<>();
          return Behaviors.receive(Host.class)
              .onMessage(
                  Start.class,
                  s -> {
                    cells.put(
                        s.id(),
                        ctx.spawn(
                            BackoffSupervisor.wrap(cell(s.id(), node), policy), "cell-" + s.id()));
                    return Behaviors.same();
                  })
              .onMessage(
                  StopCell.class,
                  s -> {
                    ActorRef<Void> cell = cells.remove(s.id());
                    if (cell != null) {
                      ctx.stop(cell);
                    }
                    return Behaviors.same();
                  })
              .build();
        });
  }

  static Optional<GateProtocol.Status> status(ActorSystem<?> node) {
    try {
      return RestartBudgets.get(node).status(NAME).toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  static boolean inView(ActorSystem<?> node, int n) {
    return status(node)
        .flatMap(GateProtocol.Status::coordination)
        .filter(c -> c.coordinated() && c.inView() == n)
        .isPresent();
  }

  static void collectChanges(int index, ActorSystem<Void> node) {
    ActorRef<BudgetEvent> collector =
        node.systemActorOf(
            Behaviors.receive(BudgetEvent.class)
                .onAnyMessage(
                    e -> {
                      if (e instanceof BudgetEvent.CoordinationChanged c
                          && c.budget().equals(NAME)) {
                        changes.add(new Change(index, System.nanoTime(), c));
                      }
                      return Behaviors.same();
                    })
                .build(),
            "coordination-changes",
            Props.empty());
    node.eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, collector));
  }

  @BeforeAll
  static void runScenario() throws Exception {
    // the last one joins later
    nodes.addAll(
        TestNodes.start(
            PLACEMENT.length + 1, "join-during-ramp", AdaptiveClusterBudgetMultiNodeTest.config()));
    timing = ReplicatedCoordination.timing(nodes.get(0));
    TestNodes.joinTheFirst(nodes.subList(0, PLACEMENT.length), Duration.ofSeconds(60));
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2))
            .withBudget(BUDGET)
            .withLoggingEnabled(false);
    for (int i = 0; i < nodes.size(); i++) {
      collectChanges(i, nodes.get(i));
      hosts.add(nodes.get(i).systemActorOf(host(i, policy), "cells", Props.empty()));
    }
    for (int i = 0; i < PLACEMENT.length; i++) {
      RestartBudgets.get(nodes.get(i)).gate(BUDGET); // the gate and its coordination start
    }
    // every node has every node's line before the outage
    TestNodes.await(
        Duration.ofSeconds(30),
        () ->
            nodes.subList(0, PLACEMENT.length).stream().allMatch(n -> inView(n, PLACEMENT.length)));
    t0 = System.nanoTime();
    int id = 0;
    for (int i = 0; i < PLACEMENT.length; i++) {
      for (int a = 0; a < PLACEMENT[i]; a++) {
        hosts.get(i).tell(new Start(id++));
      }
    }
    TestNodes.await(
        Duration.ofSeconds(30),
        () ->
            nodes.subList(0, PLACEMENT.length).stream()
                .allMatch(n -> status(n).filter(s -> s.state() == State.HOLDING).isPresent()));
    Thread.sleep(2000); // the outage, in real time
    outageEndAt = System.nanoTime();
    up.set(true);
    // the ramp has begun: the fifth node joins
    TestNodes.await(Duration.ofSeconds(30), () -> !back.isEmpty());
    ActorSystem<Void> joiner = nodes.get(PLACEMENT.length);
    joinAt = System.nanoTime();
    Cluster.get(joiner)
        .manager()
        .tell(Join.create(Cluster.get(nodes.get(0)).selfMember().address()));
    TestNodes.await(
        Duration.ofSeconds(30), () -> TestNodes.upMembers(joiner) == PLACEMENT.length + 1);
    RestartBudgets.get(joiner).gate(BUDGET); // as the first entity sharding gives it would
    joinerGateAt = System.nanoTime();
    // once it is coordinated, the biggest node's actors that are not back move to it
    long joinBound = timing.staleAfterNanos(PLACEMENT.length + 1) + ALLOWANCE_NANOS;
    TestNodes.await(
        Duration.ofNanos(joinBound),
        () ->
            changes.stream()
                .anyMatch(c -> c.node() == PLACEMENT.length && c.event().coordinated()));
    joinerCoordinatedAt = System.nanoTime();
    for (int a = 0; a < PLACEMENT[0] && moved < MOVED_AT_MOST; a++) {
      if (!back.contains(a)) {
        hosts.get(0).tell(new StopCell(a));
        hosts.get(PLACEMENT.length).tell(new Start(a));
        moved++;
      }
    }
    // its line reaches the others: every node's view has five nodes
    TestNodes.await(
        Duration.ofNanos(joinBound),
        () -> nodes.stream().allMatch(n -> inView(n, PLACEMENT.length + 1)));
    everyViewHasFiveAt = System.nanoTime();
    TestNodes.await(Duration.ofSeconds(60), () -> back.size() == ACTORS);
    backAt = System.nanoTime();
  }

  @AfterAll
  static void shutdown() throws Exception {
    TestNodes.terminate(nodes);
  }

  /** The time each node spent alone after the outage began: from each loss to its regain. */
  static List<Long> aloneSpells(int node) {
    List<Long> spells = new ArrayList<>();
    long since = -1;
    for (Change c : changes) {
      if (c.node() != node || c.at() < t0) {
        continue;
      }
      if (!c.event().coordinated() && since < 0) {
        since = c.at();
      } else if (c.event().coordinated() && since >= 0) {
        spells.add(c.at() - since);
        since = -1;
      }
    }
    if (since >= 0) {
      spells.add(backAt - since); // still alone at the end
    }
    return spells;
  }

  @Test
  void everyActorIsBack_andTheDatabaseIsNeverKnockedOver() {
    long outageWindow = (outageEndAt - t0) / WINDOW_NANOS;
    int busiest = TestNodes.busiestWindowAfter(offered, outageWindow);
    System.out.printf(
        "join during the ramp: joined %.2f s after the outage, coordinated %.2f s after its gate"
            + " started, in every view %.2f s after, %d actors moved, every actor back %.2f s"
            + " after the outage, busiest window %d (capacity %d), alone spells (ms) %s, nodes"
            + " whose own probe raised the back epoch to 1: %s, windows after the outage (ms:"
            + " calls) above the capacity %s, actors moved at %d ms%n",
        (joinAt - outageEndAt) / 1e9,
        (joinerCoordinatedAt - joinerGateAt) / 1e9,
        (everyViewHasFiveAt - joinerGateAt) / 1e9,
        moved,
        (backAt - outageEndAt) / 1e9,
        busiest,
        WINDOW_CAPACITY,
        spellsByNode(),
        changes.stream()
            .filter(c -> c.event().raisedHere() && c.event().backEpoch() == 1)
            .map(Change::node)
            .toList(),
        offered.entrySet().stream()
            .filter(e -> e.getKey() > outageWindow && e.getValue().get() > WINDOW_CAPACITY)
            .sorted(Map.Entry.comparingByKey())
            .map(
                e ->
                    (e.getKey() * WINDOW_NANOS - (outageEndAt - t0)) / 1_000_000
                        + ":"
                        + e.getValue()
                        + " by node "
                        + byNode.get(e.getKey()))
            .toList(),
        (joinerCoordinatedAt - outageEndAt) / 1_000_000);
    assertEquals(ACTORS, back.size());
    assertTrue(moved > 0, "no actor was left to move: the node joined after the ramp");
    assertEquals(0, knockedOver.get(), "busiest window after the outage offered " + busiest);
    assertTrue(busiest <= 3 * WINDOW_CAPACITY, "busiest window offered " + busiest);
  }

  @Test
  void theJoinedNodeCoordinates_andItsLineReachesEveryOtherNode_withinAStaleWindow() {
    long stale = timing.staleAfterNanos(PLACEMENT.length + 1);
    assertEquals(4_500_000_000L, stale, "settle 1.5 s + three heartbeats of 1 s");
    assertTrue(
        joinerCoordinatedAt - joinerGateAt <= stale + ALLOWANCE_NANOS,
        "coordinated " + (joinerCoordinatedAt - joinerGateAt) / 1_000_000 + " ms after its gate");
    assertTrue(
        everyViewHasFiveAt - joinerGateAt <= stale + ALLOWANCE_NANOS,
        "in every view " + (everyViewHasFiveAt - joinerGateAt) / 1_000_000 + " ms after its gate");
  }

  @Test
  void noNodeDecidesAloneForLongerThanTheStaleWindow_andNoneButTheJoinedOneAtAll() {
    long stale = timing.staleAfterNanos(PLACEMENT.length + 1);
    for (int i = 0; i < nodes.size(); i++) {
      for (long spell : aloneSpells(i)) {
        assertTrue(
            spell <= stale + ALLOWANCE_NANOS,
            "node " + i + " alone for " + spell / 1_000_000 + " ms; all: " + spellsByNode());
      }
    }
    // a joining member does not send the others alone: they count it as joining until its line
    // arrives (within a settle time, well within the stale window it may take)
    for (int i = 0; i < PLACEMENT.length; i++) {
      assertEquals(
          List.of(), aloneSpells(i), "node " + i + " decided alone; all: " + spellsByNode());
    }
    // the joined node decides alone until it has the others' lines, and then no more
    Change last =
        changes.stream()
            .filter(c -> c.node() == PLACEMENT.length)
            .reduce((a, b) -> b)
            .orElseThrow();
    assertTrue(last.event().coordinated(), "the joined node ends alone: " + last);
  }

  /**
   * The news of the return: the one prober's probe raised the back epoch to 1, no other node's
   * (the member that joins as the ramp begins does not make the holding nodes probe), and every
   * node, the one that joined after it included, learnt it.
   */
  @Test
  void oneNodeRaisedTheBackEpoch_andEveryNodeLearntIt() {
    List<Integer> raisers =
        changes.stream()
            .filter(c -> c.event().raisedHere() && c.event().backEpoch() == 1)
            .map(Change::node)
            .toList();
    assertEquals(1, raisers.size(), "nodes that raised epoch 1: " + raisers + history());
    for (int i = 0; i < nodes.size(); i++) {
      int node = i;
      assertTrue(
          changes.stream().anyMatch(c -> c.node() == node && c.event().backEpoch() >= 1),
          "node " + i + " never learnt the return: " + history());
    }
  }

  /** Every change after the outage began, with its time after the outage's end in ms. */
  static String history() {
    StringBuilder b = new StringBuilder();
    for (Change c : changes) {
      if (c.at() >= t0) {
        b.append(
            String.format(
                "%n  %+6d ms node %d %s", (c.at() - outageEndAt) / 1_000_000, c.node(), c.event()));
      }
    }
    return b.toString();
  }

  static String spellsByNode() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      out.add(i + "=" + aloneSpells(i).stream().map(n -> n / 1_000_000).toList());
    }
    return String.join(" ", out);
  }
}
