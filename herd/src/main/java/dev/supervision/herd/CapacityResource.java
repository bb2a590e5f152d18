package dev.supervision.herd;

import java.util.ArrayList;
import java.util.List;

/**
 * The shared resource's state after the outage struck: down, up with a per-window capacity, knocked
 * over by a surge (see {@link ResourceSpec}). Both modes use this one class: the exact mode calls it
 * in event order, the real mode under a lock with the model time of each call. Calls must come in
 * non-decreasing time; a call that is earlier than the last one counts in the current window. Not
 * thread-safe.
 */
public final class CapacityResource {

  /** What a call to the resource got. */
  public enum Outcome {
    /** Served. */
    OK,
    /** The resource is down (the outage, or a crash). */
    DOWN,
    /** The resource is up but its window is full. */
    OVERLOADED;

    /**
     * Whether the call failed.
     *
     * @return {@code this != OK}
     */
    public boolean failed() {
      return this != OK;
    }
  }

  private final ResourceSpec spec;
  private final long windowNanos;
  private long downFrom;
  private long downUntil;
  private long window = -1;
  private long servedInWindow;
  private long offeredUpInWindow;
  private final List<Long> crashes = new ArrayList<>();

  /**
   * A resource that went down at 0 for {@code outageNanos}.
   *
   * @param spec how it behaves once back
   * @param outageNanos the outage
   */
  public CapacityResource(ResourceSpec spec, long outageNanos) {
    this(spec, outageNanos, ResourceSpec.WINDOW_MS * 1_000_000L);
  }

  /**
   * A resource that went down at 0 for {@code outageNanos}, enforcing its capacity per window of
   * another width.
   *
   * @param spec how it behaves once back
   * @param outageNanos the outage
   * @param windowNanos the width of a capacity window, in model nanoseconds
   */
  public CapacityResource(ResourceSpec spec, long outageNanos, long windowNanos) {
    this.spec = spec;
    this.windowNanos = windowNanos;
    this.downFrom = 0;
    this.downUntil = outageNanos;
  }

  /**
   * One call.
   *
   * @param atNanos when, in model nanoseconds since the outage began
   * @return what the call got
   */
  public Outcome call(long atNanos) {
    long w = Math.max(window, atNanos / windowNanos);
    if (w != window) {
      window = w;
      servedInWindow = 0;
      offeredUpInWindow = 0;
    }
    if (atNanos >= downFrom && atNanos < downUntil) {
      return Outcome.DOWN;
    }
    offeredUpInWindow++;
    if (spec.unlimited()) {
      return Outcome.OK;
    }
    double capacity = spec.windowCapacity(w, downUntil, windowNanos);
    if (servedInWindow < (long) (capacity + 1e-9)) {
      servedInWindow++;
      return Outcome.OK;
    }
    if (spec.crashFactor() > 0 && offeredUpInWindow > spec.crashFactor() * capacity) {
      downFrom = atNanos;
      downUntil = atNanos + spec.crashFor().toNanos();
      crashes.add(atNanos);
    }
    return Outcome.OVERLOADED;
  }

  /**
   * Whether the resource is down at a time, as far as it knows now.
   *
   * @param atNanos a time no earlier than the last call
   * @return whether a call then would find it down
   */
  public boolean isDown(long atNanos) {
    return atNanos >= downFrom && atNanos < downUntil;
  }

  /**
   * When the resource was knocked over again after the outage.
   *
   * @return the crash times in model nanoseconds, in order
   */
  public List<Long> crashes() {
    return List.copyOf(crashes);
  }
}
