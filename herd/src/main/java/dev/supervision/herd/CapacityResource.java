package dev.supervision.herd;

import java.util.ArrayList;
import java.util.List;

/**
 * The shared resource's state after the outage struck: down, up with a per-window capacity, knocked
 * over by a surge, or behind a rate limiter (see {@link ResourceSpec}). Both modes use this one class: the exact mode calls it
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
    /** The resource is up but its window is full, or its rate limiter rejected the call. */
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
  private final long limiterTickNanos;
  private long limiterExcess; // thousandths of a request, as nginx keeps it
  private long limiterLast = Long.MIN_VALUE; // the limiter's millisecond of its last accepted call

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
   * @param windowNanos the width of a capacity window, in model nanoseconds; a limiter's clock
   *     counts in {@code windowNanos / 100} (one millisecond of the window's own time)
   */
  public CapacityResource(ResourceSpec spec, long outageNanos, long windowNanos) {
    this.spec = spec;
    this.windowNanos = windowNanos;
    this.limiterTickNanos = Math.max(1, windowNanos / ResourceSpec.WINDOW_MS);
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
    if (spec.limited()) {
      return limit(atNanos);
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
   * nginx's {@code limit_req} with {@code nodelay} ({@code ngx_http_limit_req_lookup}): the excess,
   * in thousandths of a request, leaks {@code rate} per second over the whole milliseconds since the
   * last accepted call and grows by one request per call; a call that would take it above the burst
   * is rejected and changes nothing.
   */
  private Outcome limit(long atNanos) {
    long ms = Math.floorDiv(atNanos, limiterTickNanos);
    long excess;
    long elapsed = 0;
    if (limiterLast == Long.MIN_VALUE) {
      excess = 0; // a new entry: nginx starts it with no excess
    } else {
      elapsed = Math.max(0, ms - limiterLast);
      // rate per second, in thousandths, over the elapsed milliseconds of the limiter's clock
      long leak =
          elapsed > 1_000_000_000L
              ? Long.MAX_VALUE / 4
              : (long)
                  Math.floor(
                      spec.capacityPerSecond() * 1000.0 * elapsed * limiterTickNanos / 1e9 + 1e-9);
      excess = Math.max(0, limiterExcess - leak + 1000);
    }
    if (excess > spec.limiterBurst() * 1000L) {
      return Outcome.OVERLOADED;
    }
    limiterExcess = excess;
    if (limiterLast == Long.MIN_VALUE || elapsed != 0) {
      limiterLast = ms;
    }
    return Outcome.OK;
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
