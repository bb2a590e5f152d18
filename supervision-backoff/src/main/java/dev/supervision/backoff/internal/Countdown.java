package dev.supervision.backoff.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * INTERNAL API: the time left until a scheduled restart, for the handler while backing off, without
 * a clock. The supervisor of a policy with a handler schedules it at a fixed rate on the actor
 * system's scheduler when a backoff starts (so {@code ManualTime} drives it) and cancels it when the
 * backoff ends; each {@link #run} counts one tick of {@link #tickNanos}. The tick is the delay / 16,
 * at least 10 ms (Pekko's default scheduler tick) and a whole number of milliseconds, so at most 16
 * ticks per backoff. Once all ticks have passed it counts no further (a fixed-rate task that keeps
 * firing until it is cancelled costs nothing).
 *
 * <p>{@link #untilRestart} is the delay less the ticks that have passed, and at least one tick:
 * with {@code left} the time really left, {@code left <= untilRestart < left + tick} (a late
 * scheduler only makes it larger), never more than the delay and never below one tick (or the delay,
 * if shorter) before the restart, whatever steps the scheduler's time takes. Written by the
 * scheduler's task, read by the actor: the count is atomic.
 */
final class Countdown extends AtomicInteger implements Runnable {

  private static final long serialVersionUID = 1L;

  /** The finest tick: Pekko's default scheduler tick. */
  static final long MIN_TICK_NANOS = Duration.ofMillis(10).toNanos();

  /** Ticks per delay, at most. */
  static final int TICKS = 16;

  private static final long MILLI = Duration.ofMillis(1).toNanos();

  private final long delayNanos;
  final long tickNanos;
  private final int total;

  /** The scheduled task that runs this countdown, cancelled when the backoff ends. */
  private Cancellable task;

  /**
   * A countdown of {@code delayNanos}.
   *
   * @param delayNanos the delay drawn for this backoff, {@code > 0}
   */
  Countdown(long delayNanos) {
    this.delayNanos = delayNanos;
    long tick = Math.max(MIN_TICK_NANOS, ceilDiv(delayNanos, TICKS));
    this.tickNanos = ceilDiv(tick, MILLI) * MILLI; // the scheduler counts whole milliseconds
    this.total = (int) Math.min(Integer.MAX_VALUE, ceilDiv(delayNanos, tickNanos));
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /** One tick has passed. */
  @Override
  public void run() {
    int ticks = get();
    while (ticks < total && !compareAndSet(ticks, ticks + 1)) {
      ticks = get();
    }
  }

  /**
   * The time left until the restart: the delay less the ticks passed, in {@code [min(tick, delay),
   * delay]}.
   */
  Duration untilRestart() {
    long left = delayNanos - get() * tickNanos;
    return Duration.ofNanos(Math.min(delayNanos, Math.max(tickNanos, left)));
  }

  /**
   * A countdown of {@code delayNanos}, scheduled at its tick's fixed rate on the actor system's
   * scheduler.
   *
   * @param jctx the supervised actor's context
   * @param delayNanos the delay drawn for this backoff, {@code > 0}
   * @return the running countdown
   */
  static Countdown start(ActorContext<?> jctx, long delayNanos) {
    Countdown started = new Countdown(delayNanos);
    Duration tick = Duration.ofNanos(started.tickNanos);
    started.task =
        jctx.getSystem()
            .scheduler()
            .scheduleAtFixedRate(tick, tick, started, jctx.getExecutionContext());
    return started;
  }

  /** Stops the scheduled task. */
  void cancel() {
    if (task != null) {
      task.cancel();
      task = null;
    }
  }
}
