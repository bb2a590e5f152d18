package dev.supervision.herd;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared resource of a real-mode run. It is up until {@link #strike()}, down for the scenario's
 * outage after that, and up again afterwards; it never goes down twice. Every call after the strike
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
  private volatile boolean struck;

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
   * One call by a cell: a connect or a query.
   *
   * @param cell the calling cell's index
   * @throws ResourceDownException while the resource is down
   */
  public void call(int cell) {
    if (!struck) {
      callsBeforeStrike.incrementAndGet();
      return;
    }
    long modelNanos = (long) ((System.nanoTime() - struckAtNanos) / scale);
    if (trace.call(modelNanos)) {
      throw new ResourceDownException();
    }
    trace.succeeded(cell, modelNanos);
  }

  /** Takes the resource down now; it comes back after the outage. */
  public void strike() {
    struckAtNanos = System.nanoTime();
    struck = true;
  }

  /**
   * The model time since the strike.
   *
   * @return model nanoseconds since {@link #strike()}, 0 before it
   */
  public long modelNanosSinceStrike() {
    return struck ? (long) ((System.nanoTime() - struckAtNanos) / scale) : 0;
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
