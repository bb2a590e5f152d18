package dev.supervision.backoff.cluster;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
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
