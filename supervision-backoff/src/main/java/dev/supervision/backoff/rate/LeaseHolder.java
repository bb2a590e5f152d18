package dev.supervision.backoff.rate;

import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.rate.AdaptiveRateController.Listener;
import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's side of a cluster-wide adaptive budget: it grants restarts within the {@link Lease}
 * the budget's learner last sent, counts what the learner must hear ({@link #report}), and falls
 * back on a controller of its own when no lease stands. Pure: time is the {@code nowNanos} the
 * caller passes in (the node's gate, or a simulation), never decreasing.
 *
 * <h2>With a lease</h2>
 *
 * <ul>
 *   <li>{@link State#STEADY} with {@link Lease#UNLIMITED} permits: restarts pass at once, until
 *       {@link Parameters#holdAfter()} actors of this node fail within one second. Then the node
 *       stops granting on its own, as one node would hold, until a lease arrives that was decided
 *       after the learner heard of those failures (its {@link Lease#acknowledged()} covers the
 *       report that carried them) or that is not steady: the learner hears of a crowd's failures a
 *       round late, and a crowd must not restart in that round.
 *   <li>{@link State#HOLDING}: nothing passes but the cluster's one probe, if this lease carries it.
 *   <li>Otherwise: the lease's permits, paced evenly over the lease's round by a {@link Pacer}; a
 *       restart never waits for a message to the learner. Permits not used when the next lease
 *       arrives are dropped: the learner gives them to the nodes that wait.
 * </ul>
 *
 * <h2>Without a lease (the fallback)</h2>
 *
 * <p>Before the first lease, and when the last one has expired ({@link Lease#validFor()} after it
 * arrived, with no newer one: the learner's node is gone, a partition, a handover), the node runs
 * its own {@link AdaptiveRateController} with {@code 1/N} of the budget ({@link #share}, {@code N}
 * the nodes that share it), so that the nodes on their fallback together probe and ramp no faster
 * than one node would. It continues from the last lease ({@link AdaptiveRateController#takeOver}):
 * holding if the learner held, ramping at the last lease's rate (or {@code 1/N} of the learner's
 * rate if the lease had no permits) if it ramped. The next lease ends the fallback.
 *
 * <p>Not thread-safe: one owner.
 */
public final class LeaseHolder {

  private static final long SECOND = 1_000_000_000L;

  private final Parameters parameters;
  private final Listener listener;
  private final long tickNanos;
  private final boolean clock;
  private final Pacer pacer;
  private int members;

  private Lease lease;
  private long leaseUntil;
  private int permitsLeft;
  private boolean probeLeft;
  private long probeGrantedAt = NONE;
  private int probes; // granted since the lease last turned to holding
  private AdaptiveRateController fallback; // null while a lease stands
  private long fallbackSlice = NONE;
  private long fuseTrippedIn = NONE; // the report number the steady fuse tripped in, NONE if armed
  private final FailureWindow fuseFailures = new FailureWindow();

  private long nextSequence;
  private int started;
  private boolean probeStarted;
  private int failedNotGranted;
  private final List<Long> failedStartedIn = new ArrayList<>();
  // recent starts by time: the report that carried each (the first at a time, if several)
  private final Map<Long, Long> reportOfStart = new HashMap<>();
  private final ArrayDeque<long[]> starts = new ArrayDeque<>();

  private static final long NONE = Long.MIN_VALUE;

  /**
   * A holder whose owner counts ticks ({@code clock} false below).
   *
   * @param parameters the budget's controller parameters (the whole cluster's)
   * @param members how many nodes share the budget, {@code >= 1}
   * @param tickNanos how often the owner calls {@link #onTick}, {@code > 0}
   * @param listener told of the fallback controller's changes, of the state each lease sets, and
   *     of each probe this node grants under a lease (counted since its lease turned to holding)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code members < 1} or {@code tickNanos <= 0}
   */
  public LeaseHolder(Parameters parameters, int members, long tickNanos, Listener listener) {
    this(parameters, members, tickNanos, false, listener);
  }

  /**
   * A holder with no lease yet, on its fallback, whose owner's time is either a count of its ticks
   * or a real clock. On a clock a permit that comes late does not keep its schedule (the pacer's
   * quantum is 0) and at most the whole permits of one tick ({@code ceil(rate * tick)}, at least 1)
   * go at once, so that beyond that no two grants are closer than {@code 1 / rate} however late the
   * owner's ticks come; counting ticks, each tick grants the permits due before the next one.
   *
   * @param parameters the budget's controller parameters (the whole cluster's)
   * @param members how many nodes share the budget, {@code >= 1}
   * @param tickNanos how often the owner calls {@link #onTick}, {@code > 0}
   * @param clock whether the owner's time is a real clock
   * @param listener as for {@link #LeaseHolder(Parameters, int, long, Listener)}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code members < 1} or {@code tickNanos <= 0}
   */
  public LeaseHolder(
      Parameters parameters, int members, long tickNanos, boolean clock, Listener listener) {
    this.clock = clock;
    this.parameters = Objects.requireNonNull(parameters, "parameters must not be null");
    this.listener = Objects.requireNonNull(listener, "listener must not be null");
    Check.argument(members >= 1, "members", ">= 1", members);
    Check.argument(tickNanos > 0, "tickNanos", "> 0", tickNanos);
    this.members = members;
    this.tickNanos = tickNanos;
    this.pacer = Pacer.of(Double.POSITIVE_INFINITY, 1, clock ? 0 : tickNanos);
    this.fallback = new AdaptiveRateController(share(parameters, members), listener);
  }

  /**
   * The parameters of one of {@code members} controllers that share a resource, each on its own:
   * the ceiling, the initial and the least rate divided by {@code members}, the first probe and the
   * longest probe interval multiplied by it.
   *
   * @param parameters the whole resource's parameters
   * @param members how many controllers share it, {@code >= 1}
   * @return the parameters of one
   * @throws IllegalArgumentException if {@code members < 1}
   */
  public static Parameters share(Parameters parameters, int members) {
    Check.argument(members >= 1, "members", ">= 1", members);
    if (members == 1) {
      return parameters;
    }
    return new Parameters(
        parameters.probation(),
        parameters.initialRate() / members,
        parameters.maxRate() / members,
        parameters.holdAfter(),
        parameters.minRate() / members,
        parameters.firstProbe().multipliedBy(members));
  }

  /**
   * The number of nodes that share the budget changed; the fallback's share follows.
   *
   * @param members how many nodes share the budget, {@code >= 1}
   * @param nowNanos the time now
   * @throws IllegalArgumentException if {@code members < 1}
   */
  public void setMembers(int members, long nowNanos) {
    Check.argument(members >= 1, "members", ">= 1", members);
    if (members == this.members) {
      return;
    }
    int before = this.members;
    this.members = members;
    if (fallback != null) {
      AdaptiveRateController old = fallback;
      fallback = new AdaptiveRateController(share(parameters, members), listener);
      fallback.takeOver(old.state(), Math.max(old.rate(), 1e-3) * before / members, nowNanos);
    }
  }

  /**
   * A lease arrived from the learner; it replaces the last one (permits left of that are dropped)
   * and ends the fallback.
   *
   * @param newLease the lease
   * @param nowNanos the time now
   * @throws NullPointerException if {@code newLease} is null
   */
  public void onLease(Lease newLease, long nowNanos) {
    Objects.requireNonNull(newLease, "lease must not be null");
    State before = state();
    fallback = null;
    fallbackSlice = NONE;
    lease = newLease;
    leaseUntil = nowNanos + newLease.validFor().toNanos();
    permitsLeft = newLease.unlimited() ? 0 : newLease.permits();
    probeLeft = newLease.probe() && newLease.permits() > 0;
    if (fuseTrippedIn != NONE
        && (newLease.state() != State.STEADY || newLease.acknowledged() >= fuseTrippedIn)) {
      fuseTrippedIn = NONE; // the learner has heard of the failures
    }
    pacer.follow(rate(), tickNanos, clock);
    if (state() != before) {
      probes = 0;
      listener.stateChanged(before, state(), Reason.LEASE, nowNanos);
    }
  }

  /**
   * A tick of the owner's clock: ends an expired lease (the fallback takes over from it), and
   * starts the fallback controller's slices.
   *
   * @param nowNanos the time now
   * @param waiting how many actors wait on this node
   */
  public void onTick(long nowNanos, int waiting) {
    if (lease != null && nowNanos >= leaseUntil) {
      fallBack(nowNanos);
    }
    if (fallback != null) {
      long k = Math.floorDiv(nowNanos, AdaptiveRateController.SLICE.toNanos());
      if (k != fallbackSlice) {
        fallbackSlice = k;
        fallback.onSlice(nowNanos, waiting);
      }
    }
  }

  /**
   * The last lease expired (the owner's timer fired with no newer lease): {@link #onTick} at its
   * end, for an owner that does not tick while idle. Does nothing on the fallback.
   *
   * @param nowNanos the time now
   */
  public void expire(long nowNanos) {
    if (lease != null) {
      fallBack(nowNanos);
    }
  }

  private void fallBack(long nowNanos) {
    Lease last = lease;
    lease = null;
    fuseTrippedIn = NONE;
    fallback = new AdaptiveRateController(share(parameters, members), listener);
    double rate =
        last.permits() > 0 && !last.unlimited() ? perSecond(last) : last.learnerRate() / members;
    if (last.state() == State.RAMPING && !(rate > 0 && Double.isFinite(rate))) {
      rate = fallback.parameters().initialRate();
    }
    fallback.takeOver(last.state(), rate, nowNanos);
  }

  /**
   * {@return whether a restart may go now, if the lease (or the fallback) allows it, taking its
   * permit}
   *
   * @param nowNanos the time now
   */
  public boolean tryGrant(long nowNanos) {
    if (fallback != null) {
      pacer.follow(fallback.rate(), tickNanos, clock);
      // the pacer is asked first: the controller takes its permit only if the restart goes
      return pacer.available(nowNanos) && fallback.tryGrant(nowNanos) && pacer.tryAcquire(nowNanos);
    }
    if (lease.unlimited()) {
      return fuseTrippedIn == NONE;
    }
    if (permitsLeft <= 0 || !pacer.tryAcquire(nowNanos)) {
      return false;
    }
    permitsLeft--;
    if (probeLeft) {
      probeLeft = false;
      probeGrantedAt = nowNanos;
      listener.probe(++probes, nowNanos);
    }
    return true;
  }

  /**
   * The actor of a restart granted at {@code grantedAtNanos} has started; report it once per
   * grant (a restart whose actor failed while starting: started, then failed, at the same time).
   *
   * @param nowNanos the time now
   * @param grantedAtNanos when {@link #tryGrant} granted it
   */
  public void onStarted(long nowNanos, long grantedAtNanos) {
    if (fallback != null) {
      fallback.onStarted(nowNanos, grantedAtNanos);
    }
    started++;
    if (probeGrantedAt != NONE && grantedAtNanos == probeGrantedAt) {
      probeStarted = true;
      probeGrantedAt = NONE;
    }
    reportOfStart.putIfAbsent(nowNanos, nextSequence);
    starts.addLast(new long[] {nowNanos, nextSequence});
  }

  /**
   * An actor of the budget on this node failed (not permanently).
   *
   * @param nowNanos the time now
   * @param startedAtNanos when its last granted restart started ({@link #onStarted}), or {@link
   *     AdaptiveRateController#NOT_GRANTED}
   */
  public void onFailure(long nowNanos, long startedAtNanos) {
    if (fallback != null) {
      fallback.onFailure(nowNanos, startedAtNanos);
    }
    Long in =
        startedAtNanos == AdaptiveRateController.NOT_GRANTED
            ? null
            : reportOfStart.get(startedAtNanos);
    if (in == null) {
      failedNotGranted++;
    } else {
      failedStartedIn.add(in);
    }
    // the steady fuse: holdAfter failures within one second trip it
    fuseFailures.add(Math.floorDiv(nowNanos, AdaptiveRateController.SLICE.toNanos()));
    if (lease != null
        && lease.unlimited()
        && fuseTrippedIn == NONE
        && fuseFailures.count() >= parameters.holdAfter()) {
      fuseTrippedIn = nextSequence; // the report that will carry this failure
    }
  }

  /**
   * {@return the report for the learner, with everything since the last one} The counts start
   * again.
   *
   * @param nowNanos the time now
   * @param waiting how many actors wait on this node
   */
  public NodeReport report(long nowNanos, int waiting) {
    long keep =
        parameters.probation().toNanos()
            + 2 * AdaptiveRateController.SLICE.toNanos()
            + (lease == null ? 0 : lease.validFor().toNanos());
    while (!starts.isEmpty() && nowNanos - starts.peekFirst()[0] > keep) {
      long[] old = starts.pollFirst();
      reportOfStart.remove(old[0], old[1]);
    }
    int covered = fallback == null && lease != null && !lease.unlimited() ? permitsLeft : 0;
    NodeReport r =
        new NodeReport(
            nextSequence++,
            waiting,
            Math.max(0, waiting - covered),
            started,
            probeStarted,
            failedNotGranted,
            failedStartedIn,
            state(),
            rate());
    started = 0;
    probeStarted = false;
    failedNotGranted = 0;
    failedStartedIn.clear();
    return r;
  }

  /** {@return the state: the lease's, or the fallback controller's} */
  public State state() {
    return fallback != null ? fallback.state() : lease.state();
  }

  /**
   * {@return the permits per second allowed now: the lease's permits over its round ({@code
   * +Infinity} for no limit, 0 while holding), or the fallback controller's rate}
   */
  public double rate() {
    if (fallback != null) {
      return fallback.rate();
    }
    return lease.unlimited()
        ? Double.POSITIVE_INFINITY
        : lease.state() == State.HOLDING ? 0 : perSecond(lease);
  }

  private static double perSecond(Lease lease) {
    return lease.permits() * (double) SECOND / lease.round().toNanos();
  }

  /**
   * {@return the goodput the fallback controller measured at its last loss, successes per second;
   * NaN under a lease (the learner measures it) or before any loss}
   */
  public double goodput() {
    return fallback != null ? fallback.goodput() : Double.NaN;
  }

  /** {@return the lease that stands, or null on the fallback} */
  public Lease lease() {
    return lease;
  }

  /** {@return how many nodes share the budget, as last set} */
  public int members() {
    return members;
  }

  /**
   * {@return whether time passing changes nothing while no actor waits: on a steady lease without
   * a limit and an armed fuse, or on an idle fallback} An owner may stop calling {@link #onTick}
   * then.
   *
   * @param nowNanos the time now
   */
  public boolean isIdle(long nowNanos) {
    return fallback != null
        ? fallback.isIdle() && pacer.isFull(nowNanos)
        : lease.unlimited() && lease.state() == State.STEADY && fuseTrippedIn == NONE;
  }

  /** {@return the pacer that spreads this node's permits (for a driver's stall protection)} */
  public Pacer pacer() {
    return pacer;
  }

  /** {@return how long a grant is remembered for its outcome to count: probation + two slices} */
  public Duration memory() {
    return parameters.probation().plus(AdaptiveRateController.SLICE.multipliedBy(2));
  }
}
