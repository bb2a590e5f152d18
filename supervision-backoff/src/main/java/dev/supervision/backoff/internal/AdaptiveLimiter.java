package dev.supervision.backoff.internal;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Pacer;

/**
 * INTERNAL API: an adaptive budget's limiter: its controller, and a pacer at the controller's rate
 * with a burst of one tick of it, so that a slice's permits spread over the slice.
 */
final class AdaptiveLimiter implements Limiter {

  private final AdaptiveRateController controller;
  private final Pacer pacer;
  private final long tickNanos;
  private final boolean onClock;
  private final long sliceNanos;
  private final long keepStartedNanos;
  private final long keepUnstartedNanos;
  private long slice;

  AdaptiveLimiter(
      RestartBudget.Adaptive budget,
      long tickNanos,
      boolean onClock,
      AdaptiveRateController.Listener listener) {
    this.controller = new AdaptiveRateController(parameters(budget), listener);
    this.tickNanos = tickNanos;
    this.onClock = onClock;
    this.sliceNanos = AdaptiveRateController.SLICE.toNanos();
    this.keepStartedNanos =
        Math.max(2 * sliceNanos, controller.parameters().probation().toNanos() + sliceNanos);
    this.keepUnstartedNanos = AdaptiveRateController.PROBE_START_TIMEOUT.toNanos() + sliceNanos;
    this.pacer = Pacer.of(Double.POSITIVE_INFINITY, 1, onClock ? 0 : tickNanos);
    pace();
  }

  static Parameters parameters(RestartBudget.Adaptive budget) {
    Parameters parameters =
        Parameters.defaults()
            .withProbation(budget.getProbation())
            .withInitialRate(budget.getInitialRate())
            .withHoldAfter(budget.getHoldAfter());
    return budget
        .getMaxRate()
        .map(max -> parameters.withMaxRate(max.permits() / (max.period().toNanos() / 1e9)))
        .orElse(parameters);
  }

  private void pace() {
    pacer.follow(controller.rate(), tickNanos, onClock);
  }

  @Override
  public long keepUnstartedNanos() {
    return keepUnstartedNanos;
  }

  @Override
  public long keepStartedNanos() {
    return keepStartedNanos;
  }

  @Override
  public void onStarted(long now, long grantedAt) {
    controller.onStarted(now, grantedAt);
  }

  @Override
  public void onTick(long now, int waiting) {
    long current = Math.floorDiv(now, sliceNanos);
    if (current != slice) {
      slice = current;
      controller.onSlice(now, waiting);
    }
  }

  @Override
  public boolean tryAcquire(long now) {
    pace();
    if (!pacer.available(now) || !controller.tryGrant(now)) {
      return false;
    }
    pacer.tryAcquire(now);
    pace(); // a grant may end steady or holding
    return true;
  }

  @Override
  public long perRelease() {
    pace();
    return pacer.maxIn(2 * tickNanos);
  }

  @Override
  public void drop(long now) {
    pace();
    pacer.drop(now);
  }

  @Override
  public void onFailure(long now, long startedAt) {
    controller.onFailure(now, startedAt);
  }

  @Override
  public void setShare(int members) {} // not shared: a cluster-wide one has a LeasedLimiter

  @Override
  public boolean isIdle(long now) {
    return pacer.isFull(now) && controller.isIdle();
  }

  @Override
  public State state() {
    return controller.state();
  }

  @Override
  public double rate() {
    return controller.rate();
  }

  @Override
  public double goodput() {
    return controller.goodput();
  }
}
