package dev.supervision.herd;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.Pacer;
import java.util.ArrayDeque;
import java.util.function.IntConsumer;

/**
 * The exact model of the library's budget gate, on the library's own {@link Pacer}: its clock is
 * its ticks, so a cell that asks between two ticks is judged at the last one; a cell whose delay
 * has passed restarts at once if none waits before it and the pacer has a permit, and waits
 * otherwise; waiting cells are released at the ticks at which the pacer has permits, in arrival
 * order.
 */
final class FixedGate implements HerdStrategy.ExactGate {
  private final Pacer pacer;
  private final long tick;
  private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
  private long now;

  FixedGate(RestartBudget.Fixed b, long tickNanos) {
    this.tick = tickNanos;
    this.pacer =
        Pacer.of(
            b.getPermits() / (b.getPeriod().toNanos() / 1e9), Math.max(1, b.getBurst()), tickNanos);
  }

  @Override
  public boolean offer(int cell, long nowNanos) {
    now = nowNanos;
    if (waiting.isEmpty() && pacer.tryAcquire(GateTicks.floorTick(nowNanos, tick))) {
      return true;
    }
    waiting.add(cell);
    return false;
  }

  @Override
  public long nextWakeNanos() {
    if (waiting.isEmpty()) {
      return Long.MAX_VALUE;
    }
    long t = GateTicks.floorTick(now, tick);
    return Math.max(t + tick, GateTicks.ceilTick(pacer.nextAt(t), tick));
  }

  @Override
  public void wake(long nowNanos, IntConsumer release) {
    now = nowNanos;
    while (!waiting.isEmpty() && pacer.tryAcquire(nowNanos)) {
      release.accept(waiting.poll());
    }
  }
}
