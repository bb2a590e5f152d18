package dev.supervision.backoff.spi;

import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.util.Collection;
import java.util.Objects;

/**
 * The decisions that make the adaptive budgets of a cluster's nodes act like one budget: which node
 * probes while the resource is down, when a holding node starts ramping because another node found
 * the resource back, which part of the cluster's rate a node takes, and when a node falls back to
 * deciding alone. A pure class: no actor, no clock, no randomness; it only reads the reports the
 * caller passes in. The cluster module's gate runs it on what Distributed Data replicates, and the
 * herd simulator's exact mode runs it on modelled replication delays, through the same code.
 *
 * <p>Every node publishes a {@link Report} of itself (its controller's state, its waiting actors,
 * its rate, the highest {@link Report#backEpoch() back epoch} it knows) and keeps the latest report
 * of every other node, stamped with the time it received it. {@link #decide} turns the node's own
 * report and that view into a {@link Decision}:
 *
 * <ul>
 *   <li><b>Coordinated or not.</b> The view is usable only if every other counted member has a
 *       report no older than {@link #staleAfterNanos()}, or a {@link #quiet quiet} one of any age
 *       (steady, nothing waiting: such a node publishes only when that changes). Otherwise (a partition, a node that has
 *       not published yet, replicas unreachable) the node falls back to the safe local behaviour
 *       the budget has without coordination: a share of {@code 1/members}, its own probes at {@code
 *       members} times the single-node interval, no rebalanced rate. It picks coordination up again
 *       as soon as the view is complete and fresh.
 *   <li><b>One prober.</b> While coordinated, only one node probes: among the nodes that report
 *       {@link State#HOLDING} with actors waiting, the one with the smallest id. Every node that
 *       shares the view chooses the same one, so the cluster probes like one node, at the
 *       single-node interval. When the prober stops waiting or leaves, the next one takes over.
 *       While a node has held for less than {@link #settleNanos()} (one replication round: the
 *       others' news that they hold too may not have reached it), it counts every node that is not
 *       ramping as a candidate, so that when a whole cluster starts holding at once only the
 *       smallest id probes, not every node that has not heard of the others yet.
 *   <li><b>Back for everyone.</b> A node whose probe survives raises the back epoch to one above
 *       the highest it knows ({@link #nextBackEpoch}). A holding node remembers the back epoch it
 *       knew when it started holding; once a report with a higher one reaches it, {@link
 *       Decision#resume()} tells it to start ramping without a probe of its own, so one round of
 *       replication brings the news to every node.
 *   <li><b>Shares follow demand.</b> A node's share is {@code (w + r) / (W + n r)}, where {@code w}
 *       is its waiting actors, {@code W} the cluster's, {@code n} the members and {@code r =
 *       max(1, W / (10 n))} a small reserve that lets a node with no waiting actors start at once
 *       when some arrive. The shares of nodes with a common view sum to exactly 1; with no actor
 *       waiting anywhere they are {@code 1/n}.
 *   <li><b>Rates move, the sum does not grow.</b> For a node that is {@link State#RAMPING}, {@link
 *       Decision#rate()} is its part of the summed rates of the ramping nodes it knows of, by the
 *       same rule as the shares but among those nodes ({@code NaN} for a node that is not ramping,
 *       or not coordinated). Rebalancing moves rate to where the actors wait without raising the
 *       sum, so a sum that the measured goodputs supported still does; a node that has not heard of
 *       the others' ramp yet keeps its own rate. The library's gate does not apply it yet: with
 *       waiting counts a round old, the herd's exact mode measured the rates ratcheting down (10
 *       nodes: 84 % of the cells back after 30 s instead of all in 1.4 x N/C); the shares alone
 *       follow demand.
 * </ul>
 *
 * <p>Thread-safe: immutable.
 */
public final class ClusterCoordinator {

  /**
   * What one node publishes about its budget.
   *
   * @param node the node's id, unique in the cluster and the same on every node (for example the
   *     member's {@code UniqueAddress} uid)
   * @param state its controller's state
   * @param waiting how many of its actors wait for a permit, {@code >= 0}
   * @param rate its controller's rate, permits per second ({@code 0} while holding, the ceiling or
   *     {@code +Infinity} when steady)
   * @param backEpoch the highest back epoch it knows, {@code >= 0}
   */
  public record Report(long node, State state, int waiting, double rate, long backEpoch) {

    /**
     * Validates the report.
     *
     * @param node see the record's description
     * @param state see the record's description
     * @param waiting see the record's description
     * @param rate see the record's description
     * @param backEpoch see the record's description
     * @throws NullPointerException if {@code state} is null
     * @throws IllegalArgumentException if {@code waiting}, {@code rate} or {@code backEpoch} is
     *     negative (the message names it)
     */
    public Report {
      Objects.requireNonNull(state, "state must not be null");
      Check.argument(waiting >= 0, "waiting", ">= 0", waiting);
      Check.argument(rate >= 0, "rate", ">= 0", rate);
      Check.argument(backEpoch >= 0, "backEpoch", ">= 0", backEpoch);
    }
  }

  /**
   * Another node's latest report, with the local time it was received.
   *
   * @param report the report
   * @param receivedAtNanos when this node received it, on the caller's time line
   */
  public record Heard(Report report, long receivedAtNanos) {

    /**
     * Validates the value.
     *
     * @param report see the record's description
     * @param receivedAtNanos see the record's description
     * @throws NullPointerException if {@code report} is null
     */
    public Heard {
      Objects.requireNonNull(report, "report must not be null");
    }
  }

  /**
   * What a node does until its next decision.
   *
   * @param coordinated whether the view was complete and fresh; if not, the other fields are the
   *     local fallback
   * @param share the node's share of the budget, in {@code (0, 1]}: of its ceiling, least rate and
   *     initial rate
   * @param prober whether this node may probe while holding
   * @param probeMembers the factor the probe intervals are multiplied by: 1 when coordinated (one
   *     prober for the cluster), {@code members} in the fallback (every node probes)
   * @param resume whether this holding node should start ramping now, because another node found
   *     the resource back
   * @param rate the rate this ramping node should take, permits per second: its part of the ramping
   *     nodes' summed rate; {@code NaN} when there is nothing to rebalance
   * @param backEpoch the highest back epoch known (the node's own or a report's)
   */
  public record Decision(
      boolean coordinated,
      double share,
      boolean prober,
      int probeMembers,
      boolean resume,
      double rate,
      long backEpoch) {}

  private final long staleAfterNanos;
  private final long settleNanos;

  /**
   * A coordinator.
   *
   * @param staleAfterNanos how old another node's report may be and still count, in nanoseconds;
   *     choose a few replication rounds
   * @param settleNanos how long a report takes to reach every node (one replication round), in
   *     nanoseconds, {@code >= 0}
   * @throws IllegalArgumentException if {@code staleAfterNanos <= 0} or {@code settleNanos < 0}
   */
  public ClusterCoordinator(long staleAfterNanos, long settleNanos) {
    Check.argument(staleAfterNanos > 0, "staleAfterNanos", "> 0", staleAfterNanos);
    Check.argument(settleNanos >= 0, "settleNanos", ">= 0", settleNanos);
    this.staleAfterNanos = staleAfterNanos;
    this.settleNanos = settleNanos;
  }

  /**
   * How long a report takes to reach every node.
   *
   * @return nanoseconds
   */
  public long settleNanos() {
    return settleNanos;
  }

  /**
   * How old a report may be and still count.
   *
   * @return nanoseconds
   */
  public long staleAfterNanos() {
    return staleAfterNanos;
  }

  /**
   * The back epoch a node publishes when its own probe survived: one above every epoch it knows.
   *
   * @param known the highest back epoch the node knows
   * @return {@code known + 1}
   */
  public static long nextBackEpoch(long known) {
    return Math.addExact(known, 1);
  }

  /**
   * Decides for one node.
   *
   * @param self this node's report, with its current state and waiting actors
   * @param heldAtEpoch the back epoch this node knew when it last started holding (ignored unless
   *     it is holding)
   * @param heldForNanos how long this node has been holding (ignored unless it is holding)
   * @param members how many nodes share the budget, this one included, {@code >= 1}
   * @param others the latest report heard from each other node (at most one per node; a report of
   *     this node, or of a node not counted, is ignored by the count but not by the epochs)
   * @param nowNanos the time now, on the same line as the reports' receive times
   * @return the decision
   * @throws NullPointerException if {@code self} or {@code others} is null
   * @throws IllegalArgumentException if {@code members < 1}
   */
  public Decision decide(
      Report self,
      long heldAtEpoch,
      long heldForNanos,
      int members,
      Collection<Heard> others,
      long nowNanos) {
    Objects.requireNonNull(self, "self must not be null");
    Objects.requireNonNull(others, "others must not be null");
    Check.argument(members >= 1, "members", ">= 1", members);
    long back = self.backEpoch();
    int fresh = 0;
    long waitingSum = self.waiting();
    boolean ramping = self.state() == State.RAMPING;
    double rampingRate = ramping ? self.rate() : 0;
    long rampingWaiting = ramping ? self.waiting() : 0;
    int rampingNodes = ramping ? 1 : 0;
    long prober =
        self.state() == State.HOLDING && self.waiting() > 0 ? self.node() : Long.MAX_VALUE;
    boolean proberFound = prober != Long.MAX_VALUE;
    boolean settling = self.state() == State.HOLDING && heldForNanos < settleNanos;
    for (Heard h : others) {
      Report r = h.report();
      back = Math.max(back, r.backEpoch());
      if (r.node() == self.node()
          || (!quiet(r) && nowNanos - h.receivedAtNanos() > staleAfterNanos)) {
        continue;
      }
      fresh++;
      waitingSum += r.waiting();
      if (r.state() == State.RAMPING) {
        rampingRate += r.rate();
        rampingWaiting += r.waiting();
        rampingNodes++;
      }
      boolean candidate =
          settling ? r.state() != State.RAMPING : r.state() == State.HOLDING && r.waiting() > 0;
      if (candidate && (!proberFound || r.node() < prober)) {
        prober = r.node();
        proberFound = true;
      }
    }
    boolean resume = self.state() == State.HOLDING && back > heldAtEpoch;
    if (fresh < members - 1) {
      // the local fallback: a share of 1/members, every node probing at members x the
      // interval
      return new Decision(false, 1.0 / members, true, members, resume, Double.NaN, back);
    }
    int n = Math.max(members, fresh + 1);
    double share;
    if (waitingSum == 0) {
      share = 1.0 / n;
    } else {
      double reserve = Math.max(1.0, waitingSum / (10.0 * n));
      share = (self.waiting() + reserve) / (waitingSum + n * reserve);
    }
    boolean isProber = proberFound && prober == self.node();
    double rate = Double.NaN;
    if (ramping && Double.isFinite(rampingRate)) {
      // shared among the ramping nodes this node knows of, by the same rule as the shares: a node
      // that has not heard of the others' ramp yet keeps its own rate
      double reserve = Math.max(1.0, rampingWaiting / (10.0 * rampingNodes));
      rate = rampingRate * (self.waiting() + reserve) / (rampingWaiting + rampingNodes * reserve);
    }
    return new Decision(true, share, isProber, 1, resume, rate, back);
  }

  /**
   * Whether a report never goes stale: a node that is steady with no actor waiting has nothing to
   * coordinate, so it need not publish again until that changes (an idle cluster sends nothing).
   *
   * @param r the report
   * @return {@code true} for a steady report with no actor waiting
   */
  public static boolean quiet(Report r) {
    return r.state() == State.STEADY && r.waiting() == 0;
  }

  @Override
  public String toString() {
    return "ClusterCoordinator{staleAfterNanos=" + staleAfterNanos + "}";
  }
}
