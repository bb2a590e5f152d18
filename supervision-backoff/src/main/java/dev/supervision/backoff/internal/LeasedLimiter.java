package dev.supervision.backoff.internal;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.LeaseHolder;
import dev.supervision.backoff.rate.NodeReport;
import dev.supervision.backoff.spi.GateProtocol;
import java.util.Optional;

/** INTERNAL API: a cluster-wide adaptive budget's limiter on one node: its {@link LeaseHolder}. */
final class LeasedLimiter implements Limiter {

  private final LeaseHolder holder;
  private final long tickNanos;
  private final long keepNanos;

  LeasedLimiter(
      RestartBudget.Adaptive budget,
      int members,
      long tickNanos,
      boolean onClock,
      AdaptiveRateController.Listener listener) {
    AdaptiveRateController.Parameters parameters = AdaptiveLimiter.parameters(budget);
    this.holder = new LeaseHolder(parameters, Math.max(1, members), tickNanos, onClock, listener);
    this.tickNanos = tickNanos;
    long slice = AdaptiveRateController.SLICE.toNanos();
    this.keepNanos =
        Math.max(
            holder.memory().toNanos(),
            AdaptiveRateController.PROBE_START_TIMEOUT.toNanos() + slice);
  }

  @Override
  public long keepUnstartedNanos() {
    return keepNanos;
  }

  @Override
  public void onTick(long now, int waiting) {
    holder.onTick(now, waiting);
  }

  @Override
  public boolean tryAcquire(long now) {
    return holder.tryGrant(now);
  }

  @Override
  public long perRelease() {
    return holder.pacer().maxIn(2 * tickNanos);
  }

  @Override
  public void drop(long now) {
    holder.pacer().drop(now);
  }

  @Override
  public void onStarted(long now, long grantedAt) {
    holder.onStarted(now, grantedAt);
  }

  @Override
  public void onFailure(long now, long startedAt) {
    holder.onFailure(now, startedAt);
  }

  @Override
  public void setShare(int members) {
    holder.setMembers(Math.max(1, members), 0);
  }

  @Override
  public void onLease(Lease lease, long now) {
    holder.onLease(lease, now);
  }

  @Override
  public void expireLease(long now) {
    holder.expire(now);
  }

  @Override
  public Optional<NodeReport> report(long now, int waiting) {
    return Optional.of(holder.report(now, waiting));
  }

  @Override
  public boolean isIdle(long now) {
    return holder.isIdle(now);
  }

  @Override
  public State state() {
    return holder.state();
  }

  @Override
  public double rate() {
    return holder.rate();
  }

  @Override
  public double goodput() {
    return holder.goodput();
  }

  @Override
  public Optional<GateProtocol.Coordination> coordination() {
    return Optional.of(GateProtocol.Coordination.of(holder));
  }
}
