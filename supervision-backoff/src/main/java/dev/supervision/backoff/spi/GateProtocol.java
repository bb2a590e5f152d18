package dev.supervision.backoff.spi;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;

/**
 * The messages of a restart budget's gate: the actor, one per budget name and actor system, that
 * hands out restart permits in arrival order. Supervised actors speak it through the core; other
 * modules speak it directly: the cluster module turns membership changes into {@link SetShare},
 * and tools such as benchmarks ask for permits with {@link Acquire}. A gate's reference comes from
 * {@code RestartBudgets.gate(budget)}. The messages are immutable records, safe to send from any
 * thread.
 */
public final class GateProtocol {

  private GateProtocol() {}

  /**
   * A message a gate understands. Only the core's gate interprets these messages; other modules
   * send them (or, like the cluster module, turn their own events into {@link SetShare}).
   */
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
   */
  public record Status(String name, State state, double rate, double goodput, int waiting) {}

  /**
   * Sets the share of the budget this gate enforces: {@code 1/members} of the permits and of the
   * burst (at least one permit of capacity). Sent by a cluster-wide budget's membership watcher; a
   * local budget keeps {@code members = 1}.
   *
   * @param members how many nodes share the budget, {@code >= 1}
   */
  public record SetShare(int members) implements Command {}

  /**
   * Tells an adaptive gate what the cluster's coordination decided for this node (see {@link
   * ClusterCoordinator}): its share, whether it probes and at which interval, whether to start
   * ramping because another node found the resource back, and the rate rebalancing gives it. Sent
   * by the cluster module's coordination; ignored by a fixed budget's gate.
   *
   * @param decision the decision
   */
  public record Coordinate(ClusterCoordinator.Decision decision) implements Command {}

  /** Asks the gate to stop as soon as no actor waits and no permit is in flight. */
  public record Retire() implements Command {}
}
