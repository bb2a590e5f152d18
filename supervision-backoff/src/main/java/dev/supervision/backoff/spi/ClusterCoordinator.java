package dev.supervision.backoff.spi;

import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.time.Duration;
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
 *   <li><b>Rates follow demand.</b> For a node that is {@link State#RAMPING}, its <em>part</em> of
 *       the summed rates of the ramping nodes it knows of is given by the same rule as the shares,
 *       among those nodes. If its own rate is below its part, {@link Decision#rate()} is that part,
 *       and the node raises its rate to it ({@link AdaptiveRateController#rebalance}); a node above
 *       its part keeps its rate until its own losses cut it. Rates are only ever raised this way,
 *       never lowered: the reports are a replication round old, and while the rates grow, a part of
 *       their stale sum is below what a node already grants (lowering to it ratcheted every rate
 *       down). Capacity a node stops using (its actors are back) goes to the nodes whose actors
 *       still wait, at once, instead of through their own growth of 20 % a second; a node that
 *       started ramping a round after the others (the news reached it later) catches up with them.
 *   <li><b>The goodput of nodes whose actors are back goes on.</b> A ramping node whose actors are
 *       all back grants nobody; what the resource served it is free. Its {@link Report#goodput()
 *       measured goodput} (never more than its rate: a rate that grew beyond it was never tried)
 *       counts with the rates in use when a waiting node's part is taken, at most {@link
 *       #FREED_STEP} times the node's own rate a decision, so that the freed capacity is tried in
 *       steps and a loss stops it. A node that has measured no goodput frees nothing.
 *   <li><b>No raise after a loss.</b> For {@link #raiseAfterLossNanos()} after a node's own rate
 *       was cut (its restarts failed: the resource is full) or it started ramping, it is not
 *       raised, and later only the reports it received since count in the sum: the others'
 *       reports from before still show their rates from before their own cuts (or, after the
 *       resource fell over again, from before it fell). So after a loss every
 *       node grants at most what its own measured goodput supports, as a node alone does, and the
 *       parts of the ramping nodes that share a view sum to exactly their summed rate and the freed
 *       goodputs: raising moves rate to the nodes whose actors wait, and adds at most that sum
 *       again.
 *   <li><b>A steady node joins the ramp.</b> A node that is {@link State#STEADY} while others ramp
 *       with actors waiting, and that has not ramped on the latest back epoch (a node that joined
 *       the cluster during the ramp, or one with no actor failing during the outage), is told to
 *       {@link Decision#resume()} as well, and every ramping node {@link Decision#stayRamping()
 *       stays ramping} while others ramp with actors waiting: actors that sharding moves to it
 *       then restart at its rate (raised to its part as above), not all at once. A node that
 *       ramped on that epoch and recovered after the cluster's ramp stays steady.
 *   <li><b>A member that is joining</b> (counted, with no report yet, for less than {@link
 *       #staleAfterNanos()}) does not send the others to the fallback: it has not granted anything
 *       the others need to know of, and it decides alone, with its fallback share, until it has
 *       their reports.
 * </ul>
 *
 * <p>Thread-safe: immutable.
 */
public final class ClusterCoordinator {

  /**
   * The most a ramping node is raised by the goodput of nodes whose actors are back, as a factor of
   * its own rate, per decision: 1.25.
   */
  public static final double FREED_STEP = 1.25;

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
   * @param goodput the goodput its controller measured at its last loss, successes per second
   *     ({@link AdaptiveRateController#goodput()}; {@code NaN} before the first loss)
   */
  public record Report(
      long node, State state, int waiting, double rate, long backEpoch, double goodput) {

    /**
     * Validates the report.
     *
     * @param node see the record's description
     * @param state see the record's description
     * @param waiting see the record's description
     * @param rate see the record's description
     * @param backEpoch see the record's description
     * @param goodput see the record's description
     * @throws NullPointerException if {@code state} is null
     * @throws IllegalArgumentException if {@code waiting}, {@code rate}, {@code backEpoch} or
     *     {@code goodput} is negative (the message names it)
     */
    public Report {
      Objects.requireNonNull(state, "state must not be null");
      Check.argument(waiting >= 0, "waiting", ">= 0", waiting);
      Check.argument(rate >= 0, "rate", ">= 0", rate);
      Check.argument(backEpoch >= 0, "backEpoch", ">= 0", backEpoch);
      Check.argument(!(goodput < 0), "goodput", ">= 0 or NaN", goodput);
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
   * @param rate the rate this ramping node should raise its rate to, permits per second: its part
   *     of the ramping nodes' summed rate (with the freed goodputs of the ramping nodes whose actors
   *     are back, at most {@link ClusterCoordinator#FREED_STEP} times its own rate), when that is
   *     above its own rate and its last loss is at least {@link #raiseAfterLossNanos()} old;
   *     {@code NaN} otherwise (nothing to raise, not ramping, or not coordinated)
   * @param backEpoch the highest back epoch known (the node's own or a report's)
   * @param stayRamping whether another node it hears of ramps with actors waiting: a ramping node
   *     then does not return to steady (where it would grant at once whatever sharding moves to it)
   *     until the cluster's ramp is over
   * @param inView the nodes whose reports counted in this decision, this one included: the other
   *     nodes with a fresh or quiet report, plus one (what the node sees of the cluster; below the
   *     members counted when it is not coordinated); informational, the decision does not depend on
   *     it
   * @param clusterWaiting the actors waiting over the nodes in view, this one's included;
   *     informational
   */
  public record Decision(
      boolean coordinated,
      double share,
      boolean prober,
      int probeMembers,
      boolean resume,
      double rate,
      long backEpoch,
      boolean stayRamping,
      int inView,
      long clusterWaiting) {}

  /**
   * The coordination's timing, derived from the replication engine's settings (Pekko Distributed
   * Data's {@code delta-crdt} propagation interval and {@code notify-subscribers-interval}) and the
   * controller's slice, so that a cluster configured to replicate faster or slower gets a
   * coordination that keeps up with it. Immutable.
   *
   * <ul>
   *   <li>the <b>round</b>, how often a node decides and publishes: two control slices, but at most
   *       one notification interval (a decision more often than news arrives changes nothing) and
   *       at least one slice; 200 ms with the defaults;
   *   <li>the <b>heartbeat</b>, how often a report that has not changed is written again while it
   *       is not {@link #quiet quiet}: five rounds, 1 s;
   *   <li>the <b>settle time</b> ({@link #settleNanos(int)}): the delta ticks that cover the other
   *       nodes, round robin, a slice of {@link #sliceSize(int)} at a time, plus the receiver's
   *       notification and one round: 1.9 s at 10 nodes, 4.7 s at 100;
   *   <li>the <b>stale window</b> ({@link #staleAfterNanos(int)}): the settle time plus three
   *       heartbeats (a node that is not quiet writes at least once a heartbeat, so three missed in a
   *       row mean it is gone or cut off): 4.9 s at 10 nodes, 7.7 s at 100;
   *   <li>the <b>hold-off after a loss</b> ({@link #raiseAfterLossNanos()}): how long after its own
   *       loss a node is not raised. The nodes that lost in the same slice cut their rates at its
   *       end too; their reports of the cut go out with their replicator's next delta, up to a delta
   *       interval later, and reach this node at its next notification. So the hold-off is one
   *       notification interval (the news arrives no sooner), and at least a delta interval and a
   *       slice: with a notification faster than the deltas, the reports heard in the first delta
   *       interval after a loss were mostly written before the others' cuts, and a raise to a part
   *       of their rates from before would undo the cut. 500 ms with the defaults (the two agree).
   * </ul>
   *
   * @param round see above
   * @param heartbeat see above
   * @param deltaInterval the engine's delta propagation interval (Pekko: 400 ms, a fifth of the
   *     gossip interval)
   * @param notifyInterval the engine's subscriber notification interval (Pekko: 500 ms)
   * @param raiseAfterLoss the hold-off after a loss, see above
   */
  public record Timing(
      Duration round,
      Duration heartbeat,
      Duration deltaInterval,
      Duration notifyInterval,
      Duration raiseAfterLoss) {

    /**
     * Validates the value.
     *
     * @param round see the record's description
     * @param heartbeat see the record's description
     * @param deltaInterval see the record's description
     * @param notifyInterval see the record's description
     * @param raiseAfterLoss see the record's description
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a duration is not positive (the message names it)
     */
    public Timing {
      Check.positive(round, "round");
      Check.positive(heartbeat, "heartbeat");
      Check.positive(deltaInterval, "deltaInterval");
      Check.positive(notifyInterval, "notifyInterval");
      Check.positive(raiseAfterLoss, "raiseAfterLoss");
    }

    /**
     * A timing whose hold-off after a loss is one notification interval.
     *
     * @param round see the record's description
     * @param heartbeat see the record's description
     * @param deltaInterval see the record's description
     * @param notifyInterval see the record's description
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a duration is not positive (the message names it)
     */
    public Timing(
        Duration round, Duration heartbeat, Duration deltaInterval, Duration notifyInterval) {
      this(round, heartbeat, deltaInterval, notifyInterval, notifyInterval);
    }

    /**
     * The timing for a controller's slice and the engine's intervals, as described above.
     *
     * @param slice the controller's control slice (100 ms by default)
     * @param deltaInterval the engine's delta propagation interval
     * @param notifyInterval the engine's subscriber notification interval
     * @return the timing
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a duration is not positive
     */
    public static Timing of(Duration slice, Duration deltaInterval, Duration notifyInterval) {
      Check.positive(slice, "slice");
      Check.positive(deltaInterval, "deltaInterval");
      Check.positive(notifyInterval, "notifyInterval");
      Duration round = slice.multipliedBy(2);
      if (round.compareTo(notifyInterval) > 0) {
        round = notifyInterval.compareTo(slice) > 0 ? notifyInterval : slice;
      }
      Duration afterDelta = deltaInterval.plus(slice);
      Duration raiseAfterLoss =
          afterDelta.compareTo(notifyInterval) > 0 ? afterDelta : notifyInterval;
      return new Timing(
          round, round.multipliedBy(5), deltaInterval, notifyInterval, raiseAfterLoss);
    }

    /**
     * Pekko's defaults: a 100 ms slice, deltas every 400 ms, notification every 500 ms.
     *
     * @return the timing
     */
    public static Timing defaults() {
      return of(Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofMillis(500));
    }

    /**
     * How many other nodes one delta tick reaches: Pekko Distributed Data's {@code min(max(n / 5 +
     * 1, 2), min(n, 10))}.
     *
     * @param members the nodes, {@code >= 1}
     * @return the slice size
     */
    public static int sliceSize(int members) {
      return Math.min(Math.max(members / 5 + 1, 2), Math.min(members, 10));
    }

    /**
     * How long a report written locally takes to reach every node and be decided on.
     *
     * @param members the nodes
     * @return nanoseconds; 0 for one node
     */
    public long settleNanos(int members) {
      int others = members - 1;
      if (others <= 0) {
        return 0;
      }
      int size = sliceSize(members);
      long ticks = (others + size - 1) / size;
      return ticks * deltaInterval.toNanos() + notifyInterval.toNanos() + round.toNanos();
    }

    /**
     * How old a report that is not quiet may be and still count.
     *
     * @param members the nodes
     * @return nanoseconds, {@code > 0}
     */
    public long staleAfterNanos(int members) {
      return settleNanos(members) + 3 * heartbeat.toNanos();
    }

    /**
     * How long after its own loss a node's rate is not raised.
     *
     * @return nanoseconds
     */
    public long raiseAfterLossNanos() {
      return raiseAfterLoss.toNanos();
    }

    /**
     * The coordinator for a cluster of {@code members} nodes with this timing.
     *
     * @param members the nodes, {@code >= 1}
     * @return the coordinator
     */
    public ClusterCoordinator coordinator(int members) {
      return new ClusterCoordinator(
          staleAfterNanos(members), settleNanos(members), raiseAfterLossNanos());
    }
  }

  /**
   * What one node keeps between its decisions: the back epoch it knows, when it started holding and
   * which epoch it knew then, whether its last ramp was ordered by the others ({@link
   * Decision#resume()}) or found by its own probe (which raises the back epoch), and when its rate
   * was last cut. The cluster module's coordination and the herd's exact model both keep one per
   * node and feed it the gate's state once a round. Not thread-safe: one owner.
   */
  public static final class Local {
    private final long node;
    private long back;
    private long heldAt;
    private long heldSince;
    private long lastLoss = Long.MIN_VALUE;
    private State last = State.STEADY;
    private double lastRate = Double.NaN;
    private double lastGoodput = Double.NaN;
    private boolean resumed;

    /**
     * A node that knows nothing yet.
     *
     * @param node its id (see {@link Report#node()})
     */
    public Local(long node) {
      this.node = node;
    }

    /**
     * Takes the gate's state now and gives the report to publish.
     *
     * @param state the controller's state
     * @param waiting the actors waiting
     * @param rate the controller's rate (negative values count as 0)
     * @param goodput the goodput the controller measured at its last loss ({@code NaN} if none): a
     *     new value, or a rate that fell while ramping, is a loss
     * @param nowNanos the time now
     * @return the report
     */
    public Report observe(State state, int waiting, double rate, double goodput, long nowNanos) {
      if (state == State.HOLDING && last != State.HOLDING) {
        heldAt = back;
        heldSince = nowNanos;
        resumed = false;
      } else if (last == State.HOLDING && state == State.RAMPING && !resumed) {
        back = nextBackEpoch(back); // this node's own probe survived
      }
      if (state == State.RAMPING && last != State.RAMPING) {
        heldAt = back; // the news this ramp acts on: a node that recovers is not resumed by it
        resumed = false;
      }
      // a loss (the rate fell while ramping, a new goodput was measured, or every restart of a
      // slice failed and the ramp fell back to holding), or a ramp that starts: the others'
      // reports heard before it describe the resource as it was
      boolean cut =
          !Double.isNaN(goodput) && Double.compare(goodput, lastGoodput) != 0
              || last == State.RAMPING && (state == State.HOLDING || rate < lastRate)
              || last != State.RAMPING && state == State.RAMPING;
      if (cut) {
        lastLoss = nowNanos;
      }
      last = state;
      lastRate = rate;
      lastGoodput = goodput;
      return report(state, waiting, rate, goodput);
    }

    /**
     * The report of the gate's state now, with the back epoch this node knows, without taking it as
     * an observation: what a node publishes after it applied a round's decision, so that the line
     * shows the state the decision left it in (ramping after a resume, a raised rate) in the same
     * round, not a round later.
     *
     * @param state the controller's state
     * @param waiting the actors waiting (negative values count as 0)
     * @param rate the controller's rate (negative values count as 0)
     * @param goodput the goodput the controller measured at its last loss ({@code NaN} if none)
     * @return the report
     */
    public Report report(State state, int waiting, double rate, double goodput) {
      return new Report(
          node, state, Math.max(0, waiting), Math.max(0, rate), back, Math.max(0, goodput));
    }

    /**
     * Decides with the last observed report and remembers the outcome's epoch and resume order.
     *
     * @param coordinator the coordinator
     * @param self the report {@link #observe} gave this round
     * @param members the nodes counted, this one included
     * @param joining the counted members that are joining (see {@link ClusterCoordinator#decide(
     *     Report, long, long, long, int, int, Collection, long)})
     * @param others the latest report of each other node
     * @param nowNanos the time now
     * @return the decision
     */
    public Decision decide(
        ClusterCoordinator coordinator,
        Report self,
        int members,
        int joining,
        Collection<Heard> others,
        long nowNanos) {
      long sinceLoss = lastLoss == Long.MIN_VALUE ? Long.MAX_VALUE : nowNanos - lastLoss;
      Decision d =
          coordinator.decide(
              self, heldAt, nowNanos - heldSince, sinceLoss, members, joining, others, nowNanos);
      back = Math.max(back, d.backEpoch());
      if (d.resume()) {
        resumed = true;
      }
      return d;
    }

    /**
     * Takes a back epoch heard from another node.
     *
     * @param epoch the epoch
     */
    public void heard(long epoch) {
      back = Math.max(back, epoch);
    }

    /**
     * The highest back epoch this node knows.
     *
     * @return the epoch
     */
    public long backEpoch() {
      return back;
    }
  }

  private final long staleAfterNanos;
  private final long settleNanos;
  private final long raiseAfterLossNanos;

  /**
   * A coordinator.
   *
   * @param staleAfterNanos how old another node's report may be and still count, in nanoseconds;
   *     choose a few replication rounds
   * @param settleNanos how long a report takes to reach every node (one replication round), in
   *     nanoseconds, {@code >= 0}
   * @param raiseAfterLossNanos how long after a node's own loss its rate is not raised to its part,
   *     in nanoseconds, {@code >= 0} (see {@link Timing#raiseAfterLossNanos()})
   * @throws IllegalArgumentException if {@code staleAfterNanos <= 0}, or {@code settleNanos} or
   *     {@code raiseAfterLossNanos} is negative
   */
  public ClusterCoordinator(long staleAfterNanos, long settleNanos, long raiseAfterLossNanos) {
    Check.argument(staleAfterNanos > 0, "staleAfterNanos", "> 0", staleAfterNanos);
    Check.argument(settleNanos >= 0, "settleNanos", ">= 0", settleNanos);
    Check.argument(raiseAfterLossNanos >= 0, "raiseAfterLossNanos", ">= 0", raiseAfterLossNanos);
    this.staleAfterNanos = staleAfterNanos;
    this.settleNanos = settleNanos;
    this.raiseAfterLossNanos = raiseAfterLossNanos;
  }

  /**
   * How long after a node's own loss its rate is not raised.
   *
   * @return nanoseconds
   */
  public long raiseAfterLossNanos() {
    return raiseAfterLossNanos;
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
   * @param heldAtEpoch the back epoch this node knew when it last started holding or ramping (the
   *     news it has acted on)
   * @param heldForNanos how long this node has been holding (ignored unless it is holding)
   * @param sinceLossNanos how long ago this node's own rate was last cut by a loss, or it last
   *     started ramping ({@code Long.MAX_VALUE} if never): only reports received since count in the
   *     rates in use
   * @param members how many nodes share the budget, this one included, {@code >= 1}
   * @param joining how many of the other members are joining: counted, without a report in {@code
   *     others}, and known for less than {@link #staleAfterNanos()}; {@code >= 0}
   * @param others the latest report heard from each other counted member, at most one per node.
   *     Every report counts for the back epoch, stale ones too; a report of this node counts for
   *     nothing else. Any other fresh or quiet report counts as a member's, whether or not its node
   *     is among the {@code members}: in the view (so it can stand in for a missing member's), the
   *     waiting, the shares (which count {@code max(members, fresh reports + 1)} nodes) and the
   *     choice of the prober. So pass the counted members' reports only.
   * @param nowNanos the time now, on the same line as the reports' receive times
   * @return the decision
   * @throws NullPointerException if {@code self} or {@code others} is null
   * @throws IllegalArgumentException if {@code members < 1} or {@code joining < 0}
   */
  public Decision decide(
      Report self,
      long heldAtEpoch,
      long heldForNanos,
      long sinceLossNanos,
      int members,
      int joining,
      Collection<Heard> others,
      long nowNanos) {
    Objects.requireNonNull(self, "self must not be null");
    Objects.requireNonNull(others, "others must not be null");
    Check.argument(members >= 1, "members", ">= 1", members);
    Check.argument(joining >= 0, "joining", ">= 0", joining);
    long back = self.backEpoch();
    int fresh = 0;
    long waitingSum = self.waiting();
    boolean ramping = self.state() == State.RAMPING;
    // the rates in use: of the ramping nodes with actors waiting (an idle ramping node's rate,
    // kept while the others ramp, grants nothing and was not measured lately)
    boolean using = ramping && self.waiting() > 0;
    double rampingRate = using ? self.rate() : 0;
    long rampingWaiting = using ? self.waiting() : 0;
    int rampingNodes = using ? 1 : 0;
    boolean othersRamp = false;
    double freed = 0;
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
      if (r.state() == State.RAMPING
          && r.waiting() == 0
          && r.goodput() > 0
          && h.receivedAtNanos() >= nowNanos - sinceLossNanos) {
        // a ramping node whose actors are all back, heard since this node's last loss: the
        // resource served it its measured goodput, and its rate beyond that was never tried
        freed += Math.min(r.rate(), r.goodput());
      }
      if (r.state() == State.RAMPING && r.waiting() > 0) {
        othersRamp = true;
        if (h.receivedAtNanos() >= nowNanos - sinceLossNanos) {
          // heard since this node's last loss or ramp start: a rate the resource took since
          rampingRate += r.rate();
          rampingWaiting += r.waiting();
          rampingNodes++;
        }
      }
      boolean candidate =
          settling ? r.state() != State.RAMPING : r.state() == State.HOLDING && r.waiting() > 0;
      if (candidate && (!proberFound || r.node() < prober)) {
        prober = r.node();
        proberFound = true;
      }
    }
    boolean resume =
        back > heldAtEpoch
            && (self.state() == State.HOLDING || self.state() == State.STEADY && othersRamp);
    if (fresh + joining < members - 1) {
      // the local fallback: a share of 1/members, every node probing at members x the
      // interval
      return new Decision(
          false,
          1.0 / members,
          true,
          members,
          resume,
          Double.NaN,
          back,
          othersRamp,
          fresh + 1,
          waitingSum);
    }
    int n = Math.max(members, fresh + 1);
    double share = part(1.0, self.waiting(), waitingSum, n); // 1/n with no actor waiting
    boolean isProber = proberFound && prober == self.node();
    double rate = Double.NaN;
    if (using && Double.isFinite(rampingRate) && sinceLossNanos >= raiseAfterLossNanos) {
      double part = part(rampingRate, self.waiting(), rampingWaiting, rampingNodes);
      if (freed > 0) {
        // the capacity of the nodes whose actors are back goes to those that wait, a step a round
        double withFreed = part(rampingRate + freed, self.waiting(), rampingWaiting, rampingNodes);
        part = Math.max(part, Math.min(withFreed, FREED_STEP * self.rate()));
      }
      if (part > self.rate()) {
        rate = part;
      }
    }
    return new Decision(
        true, share, isProber, 1, resume, rate, back, othersRamp, fresh + 1, waitingSum);
  }

  /**
   * A node's part of {@code sum} by the rule of the shares: {@code sum (w + r) / (W + n r)}, {@code
   * r = max(1, W / 10n)}; the parts of nodes with a common view add up to {@code sum}. The share is
   * the part of 1, the rate the part of the ramping nodes' summed rate.
   */
  static double part(double sum, long waiting, long waitingSum, int nodes) {
    double reserve = Math.max(1.0, waitingSum / (10.0 * nodes));
    return sum * (waiting + reserve) / (waitingSum + nodes * reserve);
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
    return "ClusterCoordinator{staleAfterNanos="
        + staleAfterNanos
        + ", settleNanos="
        + settleNanos
        + ", raiseAfterLossNanos="
        + raiseAfterLossNanos
        + "}";
  }
}
