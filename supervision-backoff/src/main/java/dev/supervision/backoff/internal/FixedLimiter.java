package dev.supervision.backoff.internal;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.Pacer;
import dev.supervision.backoff.rate.TokenBucket;

/**
 * INTERNAL API: a fixed budget's limiter: a {@link Pacer} at the node's share. On a clock its
 * quantum is 0, so that beyond the burst no two permits go closer than {@code 1 / rate}.
 */
final class FixedLimiter implements Limiter {

  private final RestartBudget.Fixed budget;
  private final Pacer pacer;
  private final long keepGrantsNanos;
  private final long tickNanos;

  FixedLimiter(RestartBudget.Fixed budget, int members, long tickNanos, boolean onClock) {
    this.budget = budget;
    this.pacer = Pacer.of(rate(members), burst(members), onClock ? 0 : tickNanos);
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
  public boolean tryAcquire(long now) {
    return pacer.tryAcquire(now);
  }

  @Override
  public long perRelease() {
    return pacer.maxIn(2 * tickNanos);
  }

  @Override
  public void giveBack(long now) {
    pacer.giveBack(now);
  }

  @Override
  public void setShare(int members) {
    pacer.setRate(rate(members));
    pacer.setBurst(burst(members));
  }

  @Override
  public boolean isIdle(long now) {
    return pacer.isFull(now);
  }

  @Override
  public double rate() {
    return pacer.rate();
  }
}
