package dev.supervision.herd;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared resource of a real-mode run. It is up until {@link #strike()}; after that it behaves
 * as the scenario's {@link CapacityResource}: down for the outage, then up with its capacity, and
 * down again whenever a surge knocks it over. Its capacity windows are 100 ms of real time (so
 * {@code 100 ms / scale} of model time, with the same capacity per second): a sped-up run must not
 * make the resource's windows shorter than the 100 ms slice in which a restart budget grants. The strike also breaks every connection made before
 * it. Every call after the strike is recorded in the {@link CallTrace}, in model time (real time
 * divided by the scale). Thread-safe: the capacity is decided under a lock, in the order the calls
 * take it.
 *
 * <p>This is demo code, not library code: it reads {@code System.nanoTime()} because the outage
 * happens in real time.
 */
public final class SimulatedResource {

  private final CallTrace trace;
  private final double scale;
  private final CapacityResource resource;
  private final AtomicInteger callsBeforeStrike = new AtomicInteger();
  private volatile long struckAtNanos;
  private volatile int epoch;

  /**
   * A resource that is up.
   *
   * @param trace where calls after the strike are recorded
   * @param scale real time per model time
   * @param spec how the resource behaves after the outage
   * @param outageNanos how long the outage lasts, in model nanoseconds
   */
  public SimulatedResource(CallTrace trace, double scale, ResourceSpec spec, long outageNanos) {
    this.trace = trace;
    this.scale = scale;
    // capacity is enforced per 100 ms of real time, the library's control slice, however fast the
    // run is played: 200 ms of model time at --scale 0.5
    this.resource =
        new CapacityResource(
            spec, outageNanos, Math.round(ResourceSpec.WINDOW_MS * 1_000_000L / scale));
  }

  /**
   * A cell connects: on every (re)start, in its {@code Behaviors.setup}.
   *
   * @param cell the calling cell's index
   * @return the connection's epoch, to be passed to {@link #query}
   * @throws ResourceDownException while the resource is down or over its capacity
   */
  public int connect(int cell) {
    int epoch = this.epoch;
    if (epoch == 0) {
      callsBeforeStrike.incrementAndGet();
      return 0;
    }
    long at;
    CapacityResource.Outcome outcome;
    synchronized (resource) {
      at = modelNanosSinceStrike();
      outcome = resource.call(at);
    }
    trace.call(at, outcome);
    if (outcome.failed()) {
      throw new ResourceDownException();
    }
    trace.succeeded(cell, at);
    return epoch;
  }

  /**
   * A cell uses its connection. A connection made before the outage struck is broken: the query
   * fails even if the resource is back by then, so every cell fails once, however late it gets to
   * its call. A query on a connection made after the strike succeeds without a new call.
   *
   * @param cell the calling cell's index
   * @param connectionEpoch what {@link #connect} returned
   * @throws ResourceDownException if the connection is broken
   */
  public void query(int cell, int connectionEpoch) {
    if (this.epoch == 0) {
      callsBeforeStrike.incrementAndGet();
      return;
    }
    if (connectionEpoch < this.epoch) {
      trace.strike(modelNanosSinceStrike());
      throw new ResourceDownException();
    }
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

  /**
   * When the resource was knocked over again.
   *
   * @return the crash times in model nanoseconds since the strike
   */
  public List<Long> crashes() {
    synchronized (resource) {
      return resource.crashes();
    }
  }
}
