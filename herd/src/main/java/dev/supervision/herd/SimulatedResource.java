package dev.supervision.herd;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared resource of a real-mode run. It is up until {@link #strike()}, down for the scenario's
 * outage after that, and up again afterwards; it never goes down twice. The strike also breaks
 * every connection made before it. Every call after the strike
 * is recorded in the {@link CallTrace}, in model time (real time divided by the scale). Thread-safe.
 *
 * <p>This is demo code, not library code: it reads {@code System.nanoTime()} because the outage
 * happens in real time.
 */
public final class SimulatedResource {

  private final CallTrace trace;
  private final double scale;
  private final AtomicInteger callsBeforeStrike = new AtomicInteger();
  private volatile long struckAtNanos;
  private volatile int epoch;

  /**
   * A resource that is up.
   *
   * @param trace where calls after the strike are recorded; it knows how long the outage lasts
   * @param scale real time per model time
   */
  public SimulatedResource(CallTrace trace, double scale) {
    this.trace = trace;
    this.scale = scale;
  }

  /**
   * A cell connects: on every (re)start, in its {@code Behaviors.setup}.
   *
   * @param cell the calling cell's index
   * @return the connection's epoch, to be passed to {@link #query}
   * @throws ResourceDownException while the resource is down
   */
  public int connect(int cell) {
    int epoch = this.epoch;
    if (epoch == 0) {
      callsBeforeStrike.incrementAndGet();
      return 0;
    }
    record(cell, false);
    return epoch;
  }

  /**
   * A cell uses its connection. A connection made before the outage struck is broken: its next
   * query fails even if the resource is back by then, so every cell fails once, however late it
   * gets to its next call.
   *
   * @param cell the calling cell's index
   * @param connectionEpoch what {@link #connect} returned
   * @throws ResourceDownException while the resource is down, or if the connection is broken
   */
  public void query(int cell, int connectionEpoch) {
    if (this.epoch == 0) {
      callsBeforeStrike.incrementAndGet();
      return;
    }
    record(cell, connectionEpoch < this.epoch);
  }

  private void record(int cell, boolean broken) {
    long modelNanos = (long) ((System.nanoTime() - struckAtNanos) / scale);
    if (trace.call(modelNanos) || broken) {
      throw new ResourceDownException();
    }
    trace.succeeded(cell, modelNanos);
  }

  /** Takes the resource down now; it comes back after the outage. */
  public void strike() {
    struckAtNanos = System.nanoTime();
    epoch = 1;
  }

  /**
   * The model time since the strike.
   *
   * @return model nanoseconds since {@link #strike()}, 0 before it
   */
  public long modelNanosSinceStrike() {
    return epoch > 0 ? (long) ((System.nanoTime() - struckAtNanos) / scale) : 0;
  }

  /**
   * Calls before the strike: one per started cell, since each connects when it starts.
   *
   * @return the number of calls made while the resource was still up before the outage
   */
  public int callsBeforeStrike() {
    return callsBeforeStrike.get();
  }
}
