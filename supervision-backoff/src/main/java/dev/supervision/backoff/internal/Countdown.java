package dev.supervision.backoff.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * INTERNAL API: the time left until a restart, for the handler while backing off, without a clock:
 * a fixed-rate task on the system's scheduler (so {@code ManualTime} drives it) counts ticks of
 * delay / 16, at least 10 ms (the default scheduler's tick), in whole milliseconds. With {@code
 * left} the time really left, {@code left <= untilRestart < left + tick}, within {@code [min(tick,
 * delay), delay]}. Written by the scheduler's task, read by the actor: atomic.
 */
final class Countdown extends AtomicInteger implements Runnable {

  private static final long serialVersionUID = 1L;
  static final long MIN_TICK_NANOS = Duration.ofMillis(10).toNanos();
  static final int TICKS = 16;
  private static final long MILLI = Duration.ofMillis(1).toNanos();
  private final long delayNanos;
  final long tickNanos;
  private final int total;
  private Cancellable task;

  Countdown(long delayNanos) {
    this.delayNanos = delayNanos;
    long tick = Math.max(MIN_TICK_NANOS, ceilDiv(delayNanos, TICKS));
    this.tickNanos = ceilDiv(tick, MILLI) * MILLI;
    this.total = (int) Math.min(Integer.MAX_VALUE, ceilDiv(delayNanos, tickNanos));
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  @Override
  public void run() {
    int ticks = get();
    while (ticks < total && !compareAndSet(ticks, ticks + 1)) {
      ticks = get();
    }
  }

  Duration untilRestart() {
    long left = delayNanos - get() * tickNanos;
    return Duration.ofNanos(Math.min(delayNanos, Math.max(tickNanos, left)));
  }

  static Countdown start(ActorContext<?> jctx, long delayNanos) {
    Countdown started = new Countdown(delayNanos);
    Duration tick = Duration.ofNanos(started.tickNanos);
    started.task =
        jctx.getSystem()
            .scheduler()
            .scheduleAtFixedRate(tick, tick, started, jctx.getExecutionContext());
    return started;
  }

  void cancel() {
    if (task != null) {
      task.cancel();
      task = null;
    }
  }
}
