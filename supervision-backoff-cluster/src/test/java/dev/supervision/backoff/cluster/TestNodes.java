package dev.supervision.backoff.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/** The set-up of this module's cluster tests: nodes over Artery on 127.0.0.1, each on a free port. */
final class TestNodes {

  private TestNodes() {}

  /** The settings every test node starts from (many nodes may share the JVM). */
  static final String NODE =
      String.join(
          "\n",
          "pekko.actor.provider = cluster",
          "pekko.remote.artery.canonical.hostname = 127.0.0.1",
          "pekko.remote.artery.canonical.port = 0",
          "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on");

  /**
   * What the tests of several nodes in one JVM add to {@link #NODE}: membership gossiped every 200
   * ms, {@code terminate()} stops a node at once without leaving (a crash, and a quick
   * {@code @AfterAll}), no dead-letter lines.
   */
  static final String MANY =
      String.join(
          "\n",
          NODE,
          "pekko.cluster.gossip-interval = 200ms",
          "pekko.cluster.leader-actions-interval = 200ms",
          "pekko.cluster.periodic-tasks-initial-delay = 100ms",
          "pekko.coordinated-shutdown.run-by-actor-system-terminate = off",
          "pekko.log-dead-letters = off");

  /**
   * Starts {@code count} nodes at once (a node takes seconds to start on a busy machine), none of
   * them joined yet.
   *
   * @param count how many
   * @param name the actor systems' name (a cluster's nodes share it)
   * @param config their settings
   * @return the nodes, in the order they were asked for
   * @throws Exception if a node did not start within 60 s
   */
  static List<ActorSystem<Void>> start(int count, String name, Config config) throws Exception {
    List<CompletableFuture<ActorSystem<Void>>> starting = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      starting.add(
          CompletableFuture.supplyAsync(
              () -> ActorSystem.create(Behaviors.<Void>empty(), name, config)));
    }
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    for (CompletableFuture<ActorSystem<Void>> node : starting) {
      nodes.add(node.get(60, TimeUnit.SECONDS));
    }
    return nodes;
  }

  /**
   * Has every node join the first and waits until each sees all of them up.
   *
   * @param nodes the nodes
   * @param max how long to wait at the most
   * @throws InterruptedException if interrupted
   * @throws AssertionError if they were not all up within {@code max}
   */
  static void joinTheFirst(List<ActorSystem<Void>> nodes, Duration max)
      throws InterruptedException {
    Address first = Cluster.get(nodes.get(0)).selfMember().address();
    for (ActorSystem<Void> node : nodes) {
      Cluster.get(node).manager().tell(Join.create(first));
    }
    await(max, () -> nodes.stream().allMatch(n -> upMembers(n) == nodes.size()));
  }

  /**
   * A cluster of one node for a test class: the node ({@link #NODE} and {@code settings}) joins
   * itself; the class shuts the kit down in its {@code @AfterAll}.
   *
   * @param name the actor system's name
   * @param settings more settings, one a line
   * @return the node's test kit
   */
  static ActorTestKit oneNodeCluster(String name, String... settings) {
    ActorTestKit kit =
        ActorTestKit.create(
            name,
            ConfigFactory.parseString(NODE + "\n" + String.join("\n", settings))
                .withFallback(ConfigFactory.load()));
    Cluster cluster = Cluster.get(kit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    return kit;
  }

  /**
   * How many members {@code node} sees as up.
   *
   * @param node the node
   * @return the count
   */
  static long upMembers(ActorSystem<?> node) {
    return StreamSupport.stream(Cluster.get(node).state().getMembers().spliterator(), false)
        .filter(m -> m.status() == MemberStatus.up())
        .count();
  }

  /**
   * Waits, in real time (the nodes run on real time), until {@code condition} holds.
   *
   * @param max how long at the most
   * @param condition what to wait for
   * @throws InterruptedException if interrupted
   * @throws AssertionError if it did not hold within {@code max}
   */
  static void await(Duration max, BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("condition not met within " + max);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Waits (up to 30 s) until the gate of a cluster-wide adaptive budget on every node holds a lease
   * from the budget's learner that counts every node.
   *
   * @param nodes the nodes
   * @param budget the budget's name
   * @throws InterruptedException if interrupted
   * @throws AssertionError if a node has no such lease after 30 s
   */
  static void awaitEveryLease(List<ActorSystem<Void>> nodes, String budget)
      throws InterruptedException {
    await(
        Duration.ofSeconds(30),
        () ->
            nodes.stream()
                .allMatch(
                    n ->
                        coordination(n, budget)
                            .filter(c -> c.coordinated() && c.inView() == nodes.size())
                            .isPresent()));
  }

  /**
   * Where the gate of {@code budget} on {@code node} stands with the budget's learner now; empty if
   * it has no gate, no coordination or does not answer within 5 s.
   *
   * @param node the node
   * @param budget the budget's name
   * @return the coordination, or empty
   */
  static java.util.Optional<GateProtocol.Coordination> coordination(
      ActorSystem<?> node, String budget) {
    try {
      return RestartBudgets.get(node)
          .status(budget)
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS)
          .flatMap(GateProtocol.Status::coordination);
    } catch (Exception e) {
      return java.util.Optional.empty();
    }
  }

  /**
   * Waits (up to 30 s) until the gate of {@code budget} on every node is in {@code state}.
   *
   * @param nodes the nodes
   * @param budget the budget's name
   * @param state the state
   * @throws InterruptedException if interrupted
   * @throws AssertionError if a gate is in another state after 30 s
   */
  static void awaitEveryGate(List<ActorSystem<Void>> nodes, String budget, State state)
      throws InterruptedException {
    await(Duration.ofSeconds(30), () -> nodes.stream().allMatch(n -> state(n, budget) == state));
  }

  /**
   * The state of the gate of {@code budget} on {@code node} now; {@code null} if it has none or
   * does not answer within 5 s.
   *
   * @param node the node
   * @param budget the budget's name
   * @return the state, or {@code null}
   */
  static State state(ActorSystem<Void> node, String budget) {
    try {
      return RestartBudgets.get(node)
          .status(budget)
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS)
          .map(GateProtocol.Status::state)
          .orElse(null);
    } catch (Exception e) {
      return null;
    }
  }

  /**
   * The most calls offered in one window after {@code window}, from a count of calls per window.
   *
   * @param offered the calls offered in each window, by the window's number
   * @param window the last window not counted (the outage's last, say)
   * @return the most calls in a later window; 0 if there is none
   */
  static int busiestWindowAfter(Map<Long, AtomicInteger> offered, long window) {
    return offered.entrySet().stream()
        .filter(e -> e.getKey() > window)
        .mapToInt(e -> e.getValue().get())
        .max()
        .orElse(0);
  }

  /**
   * Terminates every node at once and waits until each has terminated (20 s each at the most).
   *
   * @param nodes the nodes
   * @throws Exception if a node did not terminate in time
   */
  static void terminate(List<ActorSystem<Void>> nodes) throws Exception {
    for (ActorSystem<Void> node : nodes) {
      node.terminate();
    }
    for (ActorSystem<Void> node : nodes) {
      node.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }
  }
}
