package dev.supervision.herd;

import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.Pacer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * The exact driver of an {@link AdaptiveRateController} and a {@link Pacer}, as the library's gate
 * drives them: its clock is its ticks, so a report or a request between two ticks counts at the
 * last one; every failure of a cell is reported with the time of its last grant; a cell whose
 * delay has passed restarts at once if none waits before it and both the pacer and the controller
 * allow it, and waits otherwise; at the first tick of every slice while the controller is not idle
 * it is told the slice has begun and how many wait; waiting cells are released at the ticks at
 * which both allow, in arrival order. The pacer follows the controller ({@link Pacer#follow}).
 */
final class AdaptiveGate implements HerdStrategy.ExactGate {
  private final AdaptiveRateController controller;
  private final Pacer pacer;
  private final long slice;
  private final long tick;
  private final long[] grantedAt;
  private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
  private long now;
  private long controllerSlice;

  /** The controller, for a cluster model that coordinates it. */
  AdaptiveRateController controller() {
    return controller;
  }

  /** How many cells wait. */
  int waitingCount() {
    return waiting.size();
  }

  /**
   * Takes the waiting cells that {@code moved} selects out of this gate, in their order (their
   * shard moved to another node).
   */
  java.util.List<Integer> evict(java.util.function.IntPredicate moved) {
    return GateTicks.evict(waiting, moved);
  }

  /** Moves this gate's notion of now, as a call would, so that its next wake-up is not past. */
  void touch(long nowNanos) {
    now = Math.max(now, nowNanos);
  }

  AdaptiveGate(AdaptiveRateController controller, int cells, long tickNanos) {
    this.controller = controller;
    this.slice = AdaptiveRateController.SLICE.toNanos();
    this.tick = tickNanos;
    this.pacer = Pacer.of(Double.POSITIVE_INFINITY, 1, tickNanos);
    this.grantedAt = new long[cells];
    Arrays.fill(grantedAt, AdaptiveRateController.NOT_GRANTED);
  }

  @Override
  public void failed(int cell, long nowNanos) {
    now = nowNanos;
    controller.onFailure(GateTicks.floorTick(nowNanos, tick), grantedAt[cell]);
  }

  @Override
  public boolean offer(int cell, long nowNanos) {
    now = nowNanos;
    long t = GateTicks.floorTick(nowNanos, tick);
    if (waiting.isEmpty() && tryGrant(t)) {
      grantedAt[cell] = t;
      return true;
    }
    waiting.add(cell);
    return false;
  }

  private boolean tryGrant(long t) {
    pacer.follow(controller.rate(), tick, false);
    if (pacer.available(t) && controller.tryAcquire(t)) {
      pacer.tryAcquire(t);
      return true;
    }
    return false;
  }

  @Override
  public long nextWakeNanos() {
    long t = GateTicks.floorTick(now, tick);
    long nextSlice = (Math.floorDiv(t, slice) + 1) * slice;
    if (waiting.isEmpty()) {
      return controller.isIdle() ? Long.MAX_VALUE : nextSlice;
    }
    long paced =
        pacer.available(t)
            ? nextSlice
            : Math.max(t + tick, GateTicks.ceilTick(pacer.nextAt(t), tick));
    return Math.min(nextSlice, paced);
  }

  @Override
  public void wake(long nowNanos, IntConsumer release) {
    now = nowNanos;
    long k = Math.floorDiv(nowNanos, slice);
    if (k != controllerSlice) {
      controllerSlice = k;
      controller.onSlice(nowNanos, waiting.size());
    }
    while (!waiting.isEmpty() && tryGrant(nowNanos)) {
      int cell = waiting.poll();
      grantedAt[cell] = nowNanos;
      release.accept(cell);
    }
  }
}
