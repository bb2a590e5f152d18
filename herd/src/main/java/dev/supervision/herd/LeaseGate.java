package dev.supervision.herd;

import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.LeaseHolder;
import dev.supervision.backoff.rate.NodeReport;
import dev.supervision.backoff.rate.Pacer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;

/**
 * The exact driver of one node's {@link LeaseHolder}, as the library's gate ({@code BudgetGate}
 * with its {@code LeasedLimiter}) drives it: its clock is its ticks, so a lease, a failure or a
 * request between two ticks counts at the last one; a cell whose delay has passed restarts at once
 * if none waits before it and the holder grants, and waits otherwise; waiting cells are released
 * in arrival order at the ticks at which the holder grants. Herd cells start when they are granted,
 * so a grant is reported started at once ({@link LeaseHolder#onStarted}); a failure is reported with
 * the start of the cell's last grant, or {@link AdaptiveRateController#NOT_GRANTED} when the gate
 * no longer remembers it (as the gate forgets grants after its keep time). The holder's {@link
 * LeaseHolder#onTick} runs at every tick at which something can change: the tick at which the
 * lease expires, the first tick of each of the fallback's slices while it is not idle, and every
 * tick at which the gate grants; between those a tick changes nothing, so the driver skips it.
 */
final class LeaseGate {

  private static final long NOT_GRANTED = AdaptiveRateController.NOT_GRANTED;

  private final LeaseHolder holder;
  private final long tick;
  private final long slice;
  private final long keep;
  private final long[] startedAt;
  private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
  private long now;
  private long leaseUntil = Long.MAX_VALUE;
  private int permitsLeft;
  private long tickedSlice = Long.MIN_VALUE;

  int grants;
  int probes;
  long fallbackNanos;
  private long fallbackSince;

  /**
   * A node's gate, on its fallback until a lease arrives.
   *
   * @param parameters the budget's parameters (the whole cluster's)
   * @param members how many nodes share the budget
   * @param cells the number of cells in the herd
   * @param tickNanos the gate's tick
   * @param listener told of the holder's changes
   */
  LeaseGate(
      AdaptiveRateController.Parameters parameters,
      int members,
      int cells,
      long tickNanos,
      AdaptiveRateController.Listener listener) {
    this.holder = new LeaseHolder(parameters, members, tickNanos, listener);
    this.tick = tickNanos;
    this.slice = AdaptiveRateController.SLICE.toNanos();
    // BudgetGate forgets a grant after its limiter's keep time (LeasedLimiter's)
    this.keep =
        Math.max(
            holder.memory().toNanos(),
            AdaptiveRateController.PROBE_START_TIMEOUT.toNanos() + slice);
    this.startedAt = new long[cells];
    Arrays.fill(startedAt, NOT_GRANTED);
    this.fallbackSince = 0;
  }

  LeaseHolder holder() {
    return holder;
  }

  int waitingCount() {
    return waiting.size();
  }

  State state() {
    return holder.state();
  }

  double rate() {
    return holder.rate();
  }

  /** Whether a lease stands (the holder is not on its fallback). */
  boolean leased() {
    return holder.lease() != null;
  }

  /** The tick at which the current lease expires, or {@code Long.MAX_VALUE} on the fallback. */
  long leaseUntil() {
    return holder.lease() == null ? Long.MAX_VALUE : leaseUntil;
  }

  void failed(int cell, long nowNanos) {
    now = Math.max(now, nowNanos);
    long t = GateTicks.floorTick(nowNanos, tick);
    long s = startedAt[cell];
    startedAt[cell] = NOT_GRANTED;
    holder.onFailure(t, s == NOT_GRANTED || t - s > keep ? NOT_GRANTED : s);
  }

  boolean offer(int cell, long nowNanos) {
    now = Math.max(now, nowNanos);
    long t = GateTicks.floorTick(nowNanos, tick);
    if (waiting.isEmpty() && tryGrant(t)) {
      started(cell, t);
      return true;
    }
    waiting.add(cell);
    return false;
  }

  private boolean tryGrant(long t) {
    boolean probe = holder.lease() != null && holder.lease().state() == State.HOLDING;
    if (!holder.tryGrant(t)) {
      return false;
    }
    grants++;
    if (holder.lease() != null && !holder.lease().unlimited()) {
      permitsLeft--;
      if (probe) {
        probes++;
      }
    }
    return true;
  }

  private void started(int cell, long t) {
    startedAt[cell] = t;
    holder.onStarted(t, t);
  }

  /**
   * A lease arrives: the holder takes it and the gate grants what it allows; then the node's
   * answer, its report.
   */
  NodeReport onLease(Lease lease, long nowNanos, IntConsumer release) {
    now = Math.max(now, nowNanos);
    long t = GateTicks.floorTick(nowNanos, tick);
    if (holder.lease() == null) {
      fallbackNanos += t - fallbackSince;
    }
    holder.onLease(lease, t);
    leaseUntil = t + lease.validFor().toNanos();
    permitsLeft = lease.unlimited() ? 0 : lease.permits();
    grantWhilePossible(t, release);
    return holder.report(t, waiting.size());
  }

  /** The node's report now (on its fallback, every round). */
  NodeReport report(long nowNanos) {
    return holder.report(GateTicks.floorTick(nowNanos, tick), waiting.size());
  }

  /** The membership changed. */
  void setMembers(int members, long nowNanos) {
    holder.setMembers(members, GateTicks.floorTick(nowNanos, tick));
  }

  /** A tick: the holder's tick, then the grants it allows. */
  void wake(long nowNanos, IntConsumer release) {
    now = Math.max(now, nowNanos);
    long t = GateTicks.floorTick(nowNanos, tick);
    boolean leased = holder.lease() != null;
    holder.onTick(t, waiting.size());
    if (leased && holder.lease() == null) {
      fallbackSince = t;
    }
    tickedSlice = Math.floorDiv(t, slice);
    grantWhilePossible(t, release);
  }

  private void grantWhilePossible(long t, IntConsumer release) {
    while (!waiting.isEmpty() && tryGrant(t)) {
      int cell = waiting.poll();
      started(cell, t);
      release.accept(cell);
    }
  }

  /**
   * When this gate must tick next: the lease's expiry, the next paced permit while cells wait and
   * permits are left, and on the fallback the next slice (while not idle) and the next paced
   * permit.
   *
   * @param reportsEveryRound whether a node on its fallback reports every round (to a learner)
   * @return the time, or {@code Long.MAX_VALUE}
   */
  long nextWakeNanos(boolean reportsEveryRound) {
    long t = GateTicks.floorTick(now, tick);
    long nextSlice = (Math.floorDiv(t, slice) + 1) * slice;
    Lease lease = holder.lease();
    Pacer pacer = holder.pacer();
    if (lease != null) {
      long wake = GateTicks.ceilTick(leaseUntil, tick);
      if (!waiting.isEmpty() && !lease.unlimited() && permitsLeft > 0) {
        long paced =
            pacer.available(t)
                ? t + tick
                : Math.max(t + tick, GateTicks.ceilTick(pacer.nextAt(t), tick));
        wake = Math.min(wake, paced);
      }
      return wake;
    }
    long first = Math.floorDiv(t, slice) != tickedSlice ? t : nextSlice;
    if (waiting.isEmpty()) {
      return reportsEveryRound || !holder.isIdle(t) ? first : Long.MAX_VALUE;
    }
    long paced =
        pacer.available(t) ? first : Math.max(t + tick, GateTicks.ceilTick(pacer.nextAt(t), tick));
    return Math.min(first, paced);
  }

  /** Takes the waiting cells that {@code moved} selects out of this gate, in their order. */
  List<Integer> evict(IntPredicate moved) {
    return GateTicks.evict(waiting, moved);
  }

  /** Moves this gate's notion of now, as a call would, so that its next wake-up is not past. */
  void touch(long nowNanos) {
    now = Math.max(now, nowNanos);
  }

  /** The node starts now (a node joining): its time on the fallback counts from now. */
  void startAt(long nowNanos) {
    fallbackSince = GateTicks.floorTick(nowNanos, tick);
    fallbackNanos = 0;
  }

  /** The time spent on the fallback until {@code nowNanos}. */
  long fallbackNanos(long nowNanos) {
    return fallbackNanos + (holder.lease() == null ? Math.max(0, nowNanos - fallbackSince) : 0);
  }
}
