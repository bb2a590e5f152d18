package dev.supervision.backoff.internal;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.Pacer;
import dev.supervision.backoff.spi.TokenBucket;
import java.util.Optional;

/**
 * INTERNAL API: a fixed budget's limiter: a {@link Pacer} at {@code permits / period / members}
 * with a burst of {@code max(1, burst / members)}. It learns nothing, so failures and the cluster's
 * coordination leave it as it is; only the membership changes its share.
 */
final class FixedLimiter implements Limiter {

  private final RestartBudget.Fixed budget;
  private final Pacer pacer;
  private final long keepGrantsNanos;
  private final long tickNanos;

  FixedLimiter(RestartBudget.Fixed budget, int members, long tickNanos) {
    this.budget = budget;
    this.pacer = Pacer.of(rate(members), burst(members), tickNanos);
    this.tickNanos = tickNanos;
    // the bucket's slices only say how long a permit may come back; the pacer grants
    this.keepGrantsNanos =
        2
            * TokenBucket.forRate(
                    budget.getPermits(), budget.getPeriod(), budget.getBurst(), members)
                .sliceNanos();
  }

  private double rate(int members) {
    return budget.getPermits() / (budget.getPeriod().toNanos() / 1e9) / members;
  }

  private double burst(int members) {
    return Math.max(1.0, budget.getBurst() / (double) members);
  }

  @Override
  public long keepUnstartedNanos() {
    return keepGrantsNanos;
  }

  @Override
  public long keepStartedNanos() {
    return keepGrantsNanos;
  }

  @Override
  public void onStarted(long now, long grantedAt) {
    // a fixed budget does not learn from outcomes
  }

  @Override
  public void onTick(long now, int waiting) {
    // the pacer needs no tick: it compares its schedule with the time it is asked at
  }

  @Override
  public boolean tryAcquire(long now) {
    return pacer.tryAcquire(now);
  }

  @Override
  public long perRelease() {
    return pacer.maxIn(2 * tickNanos);
  }

  /**
   * Nothing: a fixed budget's rate is a promise over time, so the permits of a stall are not
   * drained; the pacer, asked late, starts its schedule again and saves its burst, as when idle.
   */
  @Override
  public void drop(long now) {
    // the pacer's own rule keeps at most its burst of the lost time
  }

  @Override
  public void giveBack(long now) {
    pacer.giveBack(now);
  }

  @Override
  public void onFailure(long now, long startedAt) {
    // a fixed budget does not learn from outcomes
  }

  @Override
  public void setShare(int members) {
    pacer.setRate(rate(members));
    pacer.setBurst(burst(members));
  }

  @Override
  public void coordinate(ClusterCoordinator.Decision decision, long now) {
    // the coordination is an adaptive budget's; a fixed budget's share follows the membership
  }

  @Override
  public boolean isIdle(long now) {
    return pacer.isFull(now);
  }

  @Override
  public State state() {
    return State.STEADY;
  }

  @Override
  public double rate() {
    return pacer.rate();
  }

  @Override
  public Optional<GateProtocol.Coordination> coordination() {
    return Optional.empty(); // a fixed budget's gates follow the membership alone
  }

  @Override
  public double goodput() {
    return Double.NaN;
  }
}
