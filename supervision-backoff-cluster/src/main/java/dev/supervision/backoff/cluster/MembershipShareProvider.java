package dev.supervision.backoff.cluster;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.ClusterBudgetProvider;
import dev.supervision.backoff.spi.GateProtocol;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * INTERNAL API: makes the gate of a cluster-wide {@link RestartBudget} on this node; the
 * implementation of the core's {@link ClusterBudgetProvider}. Loaded by the core with {@link
 * java.util.ServiceLoader} (registered in {@code META-INF/services}); users never call it.
 *
 * <p>The gate is the core's own gate (made by the {@code localGate} the core passes in), told the
 * number {@code N} of nodes that share the budget (see {@link Membership}: every member from
 * joining until removed, reachable or not, and at least this node). It starts with the membership
 * this node knows when the gate is created, then follows the cluster's member events: each one is
 * turned, by a message adapter, into a {@link GateProtocol.SetShare} with the new count. (While the
 * initial state streams in, member by member, the count passes through smaller values; that adds no
 * tokens, since raising a share only speeds up the refill, and the last event restores the full
 * count.) A fixed budget's gate enforces {@code 1/N} of the budget: lowering the share drops tokens
 * above the new capacity at once; raising it adds no tokens, only a faster refill.
 *
 * <p>An adaptive budget's gate grants within the leases of the budget's one learner, a cluster
 * singleton ({@link LearnerActor}) that this method starts (on the oldest node) or finds; a child of
 * the gate ({@link LearnerClient}) carries the leases and the gate's reports. {@code N} sets only
 * the gate's fallback: {@code 1/N} of the budget while it holds no lease.
 */
public final class MembershipShareProvider implements ClusterBudgetProvider {

  /** Called by {@link java.util.ServiceLoader}. */
  public MembershipShareProvider() {}

  @Override
  public Behavior<GateProtocol.Command> gate(
      String budgetName,
      Optional<Parameters> adaptive,
      IntFunction<Behavior<GateProtocol.Command>> localGate) {
    return Behaviors.setup(
        ctx -> {
          Cluster cluster = Cluster.get(ctx.getSystem());
          // The snapshot sets the share the gate starts with. The set that follows the changes is
          // built from the subscription's events only (its initial state arrives as events): a
          // member removed between the snapshot and the subscription would otherwise stay counted
          // for ever.
          int initial = 0;
          boolean selfKnown = false;
          for (Member member : cluster.state().getMembers()) {
            initial++;
            selfKnown |= member.uniqueAddress().equals(cluster.selfMember().uniqueAddress());
          }
          Membership membership = new Membership(cluster.selfMember().uniqueAddress());
          ActorRef<ClusterEvent.MemberEvent> adapter =
              ctx.messageAdapter(
                  ClusterEvent.MemberEvent.class,
                  event ->
                      new GateProtocol.SetShare(
                          membership.update(
                              event.member().uniqueAddress(),
                              event instanceof ClusterEvent.MemberRemoved)));
          // initial state as events: the current members arrive first, then every change
          cluster.subscriptions().tell(Subscribe.create(adapter, ClusterEvent.MemberEvent.class));
          if (adaptive.isPresent()) {
            Parameters parameters = adaptive.get();
            ActorRef<LearnerProtocol.ToLearner> learner =
                LearnerActor.init(ctx.getSystem(), budgetName, parameters);
            ctx.spawn(
                LearnerClient.create(
                    budgetName, ctx.getSelf(), learner, AdaptiveRateController.SLICE),
                "learner-client");
          }
          return localGate.apply(selfKnown ? initial : initial + 1);
        });
  }
}
