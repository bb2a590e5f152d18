package dev.supervision.backoff.spi;

import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.LeaseHolder;
import dev.supervision.backoff.rate.NodeReport;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;

/**
 * The messages of a restart budget's gate: the actor, one per budget name and actor system, that
 * hands out restart permits in arrival order. Supervised actors speak it through the core; other
 * modules directly (the cluster module sends {@link SetShare}, benchmarks {@link Acquire}). A
 * gate's reference comes from {@code RestartBudgets.gate(budget)}. The messages are immutable
 * records, safe to send from any thread.
 */
public final class GateProtocol {

  private GateProtocol() {}

  /** A message a gate understands; only the core's gate interprets them. */
  public interface Command {}

  /**
   * Asks for a permit; the gate sends {@code grant} to {@code requester} when it has one.
   *
   * @param requester the supervised actor
   * @param grant the signal to send back (it identifies the request to the requester)
   */
  public record Acquire(ActorRef<Object> requester, Signal grant) implements Command {}

  /**
   * Gives up the requester's place in the queue (it was stopped while waiting). If the gate has just
   * sent it a permit, the permit goes to the next waiter.
   *
   * @param requester the supervised actor
   */
  public record Cancel(ActorRef<Object> requester) implements Command {}

  /**
   * A supervised actor of an adaptive budget failed (not permanently); ignored by a fixed budget.
   *
   * @param requester the supervised actor
   */
  public record Failed(ActorRef<Object> requester) implements Command {}

  /**
   * The supervised actor of an adaptive budget that a permit restarted has started: its restarted
   * behavior was set up and handled the messages stashed during its backoff. An adaptive budget
   * counts the restart's probation from the moment this reaches the gate; a restart whose actor
   * has not started yet is neither a success nor a failure. Ignored by a fixed budget.
   *
   * @param requester the supervised actor
   */
  public record Started(ActorRef<Object> requester) implements Command {}

  /**
   * Asks how many actors wait.
   *
   * @param replyTo gets the count
   */
  public record Waiting(ActorRef<Integer> replyTo) implements Command {}

  /**
   * Asks for the gate's state.
   *
   * @param replyTo gets the status
   */
  public record Query(ActorRef<Status> replyTo) implements Command {}

  /**
   * A budget's state, as its gate reports it: the reply to {@link Query}, and what {@code
   * RestartBudgets.status(name)} returns.
   *
   * @param name the budget's name
   * @param state {@code STEADY}, {@code HOLDING} or {@code RAMPING} (a fixed budget is always
   *     {@link State#STEADY})
   * @param rate the restarts per second it allows now ({@code +Infinity} for no limit, 0 while
   *     holding)
   * @param goodput the goodput measured at its last loss, restarts per second; {@code NaN} if none
   *     (always for a fixed budget)
   * @param waiting how many actors wait for a permit
   * @param coordination for an adaptive cluster-wide budget, where this node stands with the
   *     budget's learner; empty for a local or fixed budget
   */
  public record Status(
      String name,
      State state,
      double rate,
      double goodput,
      int waiting,
      Optional<Coordination> coordination) {

    /**
     * Checks the value.
     *
     * @param name see the record's description
     * @param state see the record's description
     * @param rate see the record's description
     * @param goodput see the record's description
     * @param waiting see the record's description
     * @param coordination see the record's description
     * @throws NullPointerException if {@code name}, {@code state} or {@code coordination} is null
     */
    public Status {
      Objects.requireNonNull(name, "name must not be null");
      Objects.requireNonNull(state, "state must not be null");
      Objects.requireNonNull(coordination, "coordination must not be null");
    }
  }

  /**
   * Where a node of an adaptive cluster-wide budget stands with the budget's learner (see {@link
   * LeaseHolder}).
   *
   * @param coordinated {@code true} if the node holds a lease from the learner; {@code false} on its
   *     fallback ({@code 1/N} of the budget, probing {@code N} times less often), before its first
   *     lease and after its last one expired
   * @param share the node's part of the permits the learner leased in its last round, in {@code [0,
   *     1]} ({@code 1/N} without a lease or without a limit)
   * @param prober whether the node's lease carries the cluster's probe
   * @param inView the nodes the learner counted (the members this node knows, on its fallback)
   * @param clusterWaiting the actors waiting over the nodes the learner counted (this node's own, on
   *     its fallback)
   */
  public record Coordination(
      boolean coordinated, double share, boolean prober, int inView, long clusterWaiting) {

    /**
     * Where a lease holder stands.
     *
     * @param holder the holder
     * @return its coordination
     * @throws NullPointerException if {@code holder} is null
     */
    public static Coordination of(LeaseHolder holder) {
      Lease lease = holder.lease();
      if (lease == null) {
        return new Coordination(false, 1.0 / holder.members(), false, holder.members(), 0);
      }
      double total = lease.learnerRate() * lease.round().toNanos() / 1e9;
      double share =
          lease.unlimited() || !(total > 0)
              ? 1.0 / Math.max(1, lease.inView())
              : Math.min(1.0, lease.permits() / total);
      return new Coordination(true, share, lease.probe(), lease.inView(), lease.clusterWaiting());
    }
  }

  /**
   * Sets the share of the budget this gate enforces: {@code 1/members} of the permits and of the
   * burst (at least one permit of capacity); for an adaptive budget, the share its fallback takes
   * while it holds no lease. Sent by a cluster-wide budget's membership watcher; a local budget
   * keeps {@code members = 1}.
   *
   * @param members how many nodes share the budget, {@code >= 1}
   */
  public record SetShare(int members) implements Command {}

  /**
   * A lease from the learner of a cluster-wide adaptive budget for this node (see {@link
   * LeaseHolder}): sent by the cluster module; ignored by any other budget's gate.
   *
   * @param lease the lease
   */
  public record GrantLease(Lease lease) implements Command {}

  /**
   * Asks a cluster-wide adaptive budget's gate for its report to the learner (see {@link
   * LeaseHolder#report}); any other gate does not answer.
   *
   * @param replyTo gets the report
   */
  public record CollectReport(ActorRef<NodeReport> replyTo) implements Command {}

  /** Asks the gate to stop as soon as no actor waits and no permit is in flight. */
  public record Retire() implements Command {}
}
