package dev.supervision.backoff.cluster;

import dev.supervision.backoff.cluster.LearnerProtocol.Granted;
import dev.supervision.backoff.cluster.LearnerProtocol.Report;
import dev.supervision.backoff.cluster.LearnerProtocol.ToLearner;
import dev.supervision.backoff.cluster.LearnerProtocol.ToNode;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;

/**
 * INTERNAL API: the one learner of a cluster-wide adaptive budget, a Pekko Cluster Singleton (on the
 * cluster's oldest node, which must have created the budget's gate: Pekko starts a singleton only
 * where its manager runs) that runs a {@link LeaseLearner}.
 *
 * <p>Every round (the controller's slice, 100 ms by default) a fixed-rate Pekko timer ticks; the
 * learner's time is the count of its ticks times the round (it reads no clock, so a tick's time is
 * exact under {@code ManualTime}, and a report is counted at the time of the last tick before it
 * arrived). On a tick it runs {@link LeaseLearner#round} and sends each node it counts its lease
 * ({@link Granted}); between ticks it takes the nodes' {@link Report}s. A node is named by its
 * client's reference: a node's gate that restarts (a new client) is a new node to the learner, and
 * the old one is forgotten after a lease's validity without reports. A removed member's nodes are
 * forgotten at once.
 *
 * <p>A new learner (after a handover, or a restart of this actor after a failure) starts from the
 * nodes' next reports ({@link LeaseLearner}): nothing of the old learner's state is carried over
 * but what the nodes' reports say (their state and rate).
 */
final class LearnerActor {

  private LearnerActor() {}

  /** The learner's round timer. */
  private enum Tick implements ToLearner {
    INSTANCE
  }

  /** A member was removed from the cluster. */
  private record MemberRemoved(Address address) implements ToLearner {}

  /**
   * The name of a budget's learner singleton.
   *
   * @param budgetName the budget's name
   * @return {@code supervision-backoff-learner-<URL-encoded name>}
   */
  static String singletonName(String budgetName) {
    return "supervision-backoff-learner-" + URLEncoder.encode(budgetName, StandardCharsets.UTF_8);
  }

  /**
   * Starts (if not yet on this node) the budget's learner singleton and returns its proxy, through
   * which messages reach the learner wherever it runs.
   *
   * @param system this node
   * @param budgetName the budget's name
   * @param parameters the budget's controller parameters (the learner uses those of the node that
   *     started it, the oldest)
   * @return the proxy
   */
  static ActorRef<ToLearner> init(ActorSystem<?> system, String budgetName, Parameters parameters) {
    return ClusterSingleton.get(system)
        .init(SingletonActor.of(create(budgetName, parameters), singletonName(budgetName)));
  }

  /**
   * The learner's behavior; restarted (a new learner) if it fails.
   *
   * @param budgetName the budget's name
   * @param parameters the budget's controller parameters
   * @return the behavior
   */
  static Behavior<ToLearner> create(String budgetName, Parameters parameters) {
    return Behaviors.supervise(
            Behaviors.<ToLearner>setup(
                ctx ->
                    Behaviors.withTimers(
                        timers -> {
                          ctx.setLoggerName(LearnerActor.class);
                          timers.startTimerAtFixedRate(
                              Tick.INSTANCE,
                              AdaptiveRateController.SLICE,
                              AdaptiveRateController.SLICE);
                          ActorRef<ClusterEvent.MemberRemoved> removed =
                              ctx.messageAdapter(
                                  ClusterEvent.MemberRemoved.class,
                                  e -> new MemberRemoved(e.member().address()));
                          Cluster.get(ctx.getSystem())
                              .subscriptions()
                              .tell(Subscribe.create(removed, ClusterEvent.MemberRemoved.class));
                          return new Learner(budgetName, parameters, ctx).behavior();
                        })))
        .onFailure(SupervisorStrategy.restart());
  }

  private static final class Learner implements AdaptiveRateController.Listener {
    private final String budget;
    private final Logger log;
    private final LeaseLearner learner;
    private final long roundNanos;
    private final Map<ActorRef<ToNode>, Long> ids = new HashMap<>();
    private final Map<Long, ActorRef<ToNode>> clients = new HashMap<>();
    private long nextId;
    private long ticks;
    private int counted;

    Learner(String budget, Parameters parameters, ActorContext<ToLearner> ctx) {
      this.budget = budget;
      this.log = ctx.getLog();
      this.learner = new LeaseLearner(parameters, this);
      this.roundNanos = AdaptiveRateController.SLICE.toNanos();
      log.debug(
          "Restart budget [{}]: learner started on {}",
          budget,
          Cluster.get(ctx.getSystem()).selfMember().address());
    }

    Behavior<ToLearner> behavior() {
      return Behaviors.receive(ToLearner.class)
          .onMessage(Report.class, this::onReport)
          .onMessageEquals(Tick.INSTANCE, this::onTick)
          .onMessage(MemberRemoved.class, this::onRemoved)
          .build();
    }

    private long now() {
      return ticks * roundNanos;
    }

    private Behavior<ToLearner> onReport(Report report) {
      Long id = ids.get(report.replyTo());
      if (id == null) {
        id = nextId++;
        ids.put(report.replyTo(), id);
        clients.put(id, report.replyTo());
        log.debug("Restart budget [{}]: learner heard a new node {}", budget, report.replyTo());
      }
      learner.onReport(id, report.report(), now());
      return Behaviors.same();
    }

    private Behavior<ToLearner> onTick() {
      ticks++;
      Map<Long, Lease> leases = learner.round(now());
      // nodes the learner no longer counts (silent for a lease's validity) are forgotten
      clients.entrySet().removeIf(e -> !leases.containsKey(e.getKey()) && forget(e.getValue()));
      for (Map.Entry<Long, Lease> e : leases.entrySet()) {
        ActorRef<ToNode> client = clients.get(e.getKey());
        if (client != null) {
          client.tell(new Granted(e.getValue()));
        }
      }
      if (leases.size() != counted) {
        log.debug(
            "Restart budget [{}]: learner counts {} nodes (was {})",
            budget,
            leases.size(),
            counted);
        counted = leases.size();
      }
      return Behaviors.same();
    }

    private boolean forget(ActorRef<ToNode> client) {
      ids.remove(client);
      return true;
    }

    private Behavior<ToLearner> onRemoved(MemberRemoved removed) {
      clients
          .entrySet()
          .removeIf(
              e -> {
                if (e.getValue().path().address().equals(removed.address())) {
                  learner.remove(e.getKey());
                  ids.remove(e.getValue());
                  return true;
                }
                return false;
              });
      return Behaviors.same();
    }

    @Override
    public void stateChanged(State from, State to, Reason reason, long nowNanos) {
      log.debug("Restart budget [{}]: learner {} -> {} ({})", budget, from, to, reason);
    }

    @Override
    public void probe(int probes, long nowNanos) {
      log.debug("Restart budget [{}]: learner leases probe {} while holding", budget, probes);
    }
  }
}
