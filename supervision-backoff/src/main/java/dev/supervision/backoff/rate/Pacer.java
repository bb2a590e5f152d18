package dev.supervision.backoff.rate;

import dev.supervision.backoff.internal.util.Check;

/**
 * Spreads permits evenly in time: at most {@code rate} per second, with a small, bounded burst; the
 * pacing of a {@link dev.supervision.backoff.RestartBudget}'s gate. Pure: time is the {@code
 * nowNanos} the caller passes in (any origin, never decreasing).
 *
 * <p>It is the generic cell rate algorithm (a token bucket in the form of a schedule): each permit
 * has a due time, {@code 1 / rate} after the previous one's; a permit may go {@code (burst - 1) /
 * rate} before it is due, never earlier. A permit taken at most one {@code quantum} after it was due
 * (the driver's timer fires only so often) keeps the schedule, so that the resolution of the timer
 * costs no rate; one taken later (the pacer was idle) starts the schedule again at {@code now}, so
 * that an idle pacer saves no more than its burst. Hence:
 *
 * <ul>
 *   <li>after a quiet period, exactly {@code burst} permits may go at once;
 *   <li>in <b>any</b> interval of length {@code d}, at most {@code 1 + floor((d + quantum) * rate +
 *       burst - 1)} permits are taken ({@link #maxIn}), that is at most {@code burst + rate * (d +
 *       quantum)};
 *   <li>a driver that calls {@link #tryAcquire} every {@code quantum} while permits wait keeps the
 *       whole rate, taking about {@code rate * quantum} permits per call.
 * </ul>
 *
 * <p>How to drive it: whenever there is something to grant, {@code while (waiting && pacer.tryAcquire(now))
 * grant()}; then ask {@link #nextAt(long)} when to try again. A permit given back ({@link #giveBack})
 * is available again, up to the burst. A driver that cannot pass on what the pacer offers (its timer
 * stalled and its ticks came back to back) may {@link #drop} it: the bound above holds with drops.
 *
 * <p>Not thread-safe: one owner.
 */
public final class Pacer {

  private static final double SECOND = 1e9;

  // one nanosecond of slack for the rounding of a schedule kept in floating point
  private static final double SLACK = 1;
  // the longest interval, the time line's length: a smaller rate's would overflow to infinity
  private static final double MAX_INTERVAL_NANOS = Long.MAX_VALUE;

  private double rate;
  private double burst;
  private final long quantumNanos;
  private double intervalNanos;
  private double aheadNanos;
  private double due = Double.NEGATIVE_INFINITY; // when the next permit is due on the schedule

  private Pacer(double rate, double burst, long quantumNanos) {
    this.quantumNanos = quantumNanos;
    this.burst = burst;
    setRate(rate);
  }

  /**
   * A full pacer.
   *
   * @param ratePerSecond permits per second, {@code > 0} (below one per {@code Long.MAX_VALUE}
   *     nanoseconds, about 1.1e-10, it paces as that: no permit for 292 years after its burst);
   *     {@code +Infinity} for no limit
   * @param burst permits that may go at once after a quiet period, {@code >= 1}
   * @param quantumNanos the resolution of the driver's timer, {@code >= 0}: it calls {@link
   *     #tryAcquire} at least this often while permits wait
   * @return a pacer
   * @throws IllegalArgumentException if a value is out of range
   */
  public static Pacer of(double ratePerSecond, double burst, long quantumNanos) {
    checkRate(ratePerSecond);
    Check.finiteAtLeast(burst, 1, "burst");
    Check.argument(quantumNanos >= 0, "quantumNanos", ">= 0", quantumNanos);
    return new Pacer(ratePerSecond, burst, quantumNanos);
  }

  private static void checkRate(double rate) {
    Check.argument(rate > 0, "ratePerSecond", "> 0", rate);
  }

  /**
   * {@return whether the schedule allowed a permit now, which is taken}
   *
   * @param nowNanos the time now
   */
  public boolean tryAcquire(long nowNanos) {
    if (intervalNanos == 0) {
      return true;
    }
    if (due > nowNanos + aheadNanos + SLACK) {
      return false;
    }
    // late by at most one quantum (the timer's resolution): keep the schedule; later (idle):
    // start it again
    due = (due >= nowNanos - quantumNanos ? due : nowNanos) + intervalNanos;
    return true;
  }

  /**
   * {@return whether {@link #tryAcquire} would take a permit now} Takes none.
   *
   * @param nowNanos the time now
   */
  public boolean available(long nowNanos) {
    return intervalNanos == 0 || due <= nowNanos + aheadNanos + SLACK;
  }

  /**
   * {@return the earliest time in nanoseconds, at or after {@code nowNanos}, at which {@link
   * #tryAcquire} takes a permit}
   *
   * @param nowNanos the time now
   */
  public long nextAt(long nowNanos) {
    if (available(nowNanos)) {
      return nowNanos;
    }
    double at = Math.ceil(due - aheadNanos);
    return at >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(nowNanos, (long) at);
  }

  /**
   * Drops the permits available now, if any, instead of letting them go out together later: the
   * next permit is due one interval ({@code 1 / rate}) after {@code nowNanos}, and the burst builds
   * up again only while permits are not taken.
   *
   * @param nowNanos the time now
   */
  public void drop(long nowNanos) {
    if (intervalNanos > 0 && available(nowNanos)) {
      due = Math.max(due, nowNanos + aheadNanos + intervalNanos);
    }
  }

  /**
   * Gives back the last permit taken (its restart did not happen): the schedule moves back by one
   * interval, but never before {@code nowNanos}, so a full pacer stays full (the burst is the cap).
   *
   * @param nowNanos the time now
   */
  public void giveBack(long nowNanos) {
    if (intervalNanos > 0 && due > nowNanos) {
      due = Math.max(nowNanos, due - intervalNanos);
    }
  }

  /**
   * {@return whether the pacer holds its whole burst and keeps no schedule, so that time passing
   * changes nothing}
   *
   * @param nowNanos the time now
   */
  public boolean isFull(long nowNanos) {
    return due < nowNanos - quantumNanos;
  }

  /**
   * Changes the rate; permits already taken keep their place on the schedule.
   *
   * @param ratePerSecond permits per second, {@code > 0} (a tiny one as in {@link #of});
   *     {@code +Infinity} for no limit
   * @throws IllegalArgumentException if {@code ratePerSecond <= 0} or NaN
   */
  public void setRate(double ratePerSecond) {
    checkRate(ratePerSecond);
    this.rate = ratePerSecond;
    this.intervalNanos =
        Double.isInfinite(ratePerSecond) ? 0 : Math.min(SECOND / ratePerSecond, MAX_INTERVAL_NANOS);
    this.aheadNanos = (burst - 1) * intervalNanos;
  }

  /**
   * Changes the burst.
   *
   * @param burst permits that may go at once after a quiet period, {@code >= 1}
   * @throws IllegalArgumentException if {@code burst < 1}
   */
  public void setBurst(double burst) {
    Check.finiteAtLeast(burst, 1, "burst");
    this.burst = burst;
    setRate(rate);
  }

  /**
   * Follows a learnt rate, such as an {@link AdaptiveRateController}'s: that rate, with a burst of
   * the permits due in one tick, so that a driver ticking every {@code tick} grants at each tick
   * the permits due before the next. Without a clock the burst is {@code 1 + rate * tick}: in any
   * interval {@code d} at most {@code 1 + rate * (d + 2 * tick)} go. On a clock (quantum 0) it is
   * {@code ceil(rate * tick)}, at least 1: below one permit per tick, no two go closer than {@code
   * 1 / rate}, however late the ticks. Unlimited for a rate of 0 (a controller holding lets its
   * one probe through) or {@code +Infinity}.
   *
   * @param rate permits per second, {@code >= 0}
   * @param tickNanos how often the driver calls, {@code >= 0}
   * @param clock whether the driver reads a clock
   * @throws IllegalArgumentException if {@code rate} is negative or NaN, or {@code tickNanos < 0}
   */
  public void follow(double rate, long tickNanos, boolean clock) {
    Check.argument(rate >= 0, "rate", ">= 0", rate);
    Check.argument(tickNanos >= 0, "tickNanos", ">= 0", tickNanos);
    if (rate > 0 && !Double.isInfinite(rate)) {
      double perTick = rate * tickNanos / SECOND;
      setBurst(clock ? Math.max(1, Math.ceil(perTick - 1e-9)) : 1 + perTick);
      setRate(rate);
    } else {
      setRate(Double.POSITIVE_INFINITY);
    }
  }

  /** {@return the rate, permits per second ({@code +Infinity} for no limit)} */
  public double rate() {
    return rate;
  }

  /** {@return the burst: permits that may go at once after a quiet period} */
  public double burst() {
    return burst;
  }

  /** {@return the quantum: the resolution of the driver's timer, in nanoseconds} */
  public long quantumNanos() {
    return quantumNanos;
  }

  /**
   * {@return the most permits any interval of {@code d} nanoseconds can hold ({@code
   * Long.MAX_VALUE} for no limit)} See the class description.
   *
   * @param dNanos the interval's length, {@code >= 0}
   */
  public long maxIn(long dNanos) {
    if (intervalNanos == 0) {
      return Long.MAX_VALUE;
    }
    return 1
        + (long) Math.floor((dNanos + quantumNanos + aheadNanos + SLACK) / intervalNanos + 1e-9);
  }

  @Override
  public String toString() {
    return "Pacer{rate=" + rate + "/s, burst=" + burst + ", quantum=" + quantumNanos + " ns}";
  }
}
