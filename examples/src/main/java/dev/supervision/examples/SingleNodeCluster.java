package dev.supervision.examples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * A one-node Pekko Cluster for the cluster examples: Artery on 127.0.0.1 with a free port, joined to
 * itself. Real deployments list seed nodes in their configuration instead.
 */
public final class SingleNodeCluster {

  private SingleNodeCluster() {}

  /**
   * The configuration of a cluster node on the loopback interface, over the examples' {@code
   * application.conf}.
   *
   * @return the configuration
   */
  public static Config config() {
    return ConfigFactory.parseString(
            String.join(
                "\n",
                "pekko.actor.provider = cluster",
                "pekko.remote.artery.canonical.hostname = 127.0.0.1",
                "pekko.remote.artery.canonical.port = 0",
                "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on"))
        .withFallback(ConfigFactory.load());
  }

  /**
   * Starts an actor system as a cluster node and makes it join itself.
   *
   * @param name the actor system's name
   * @return the system; it becomes an {@code Up} member shortly after
   */
  public static ActorSystem<Void> start(String name) {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), name, config());
    Cluster cluster = Cluster.get(system);
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    return system;
  }
}
