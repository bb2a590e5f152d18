package dev.supervision.backoff.rate;

import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;
import java.util.Objects;

/**
 * A token bucket refilled in equal slices of time: the per-slice permits of an {@link
 * AdaptiveRateController}, and ({@link #forRate}) the slices of a fixed {@link
 * dev.supervision.backoff.RestartBudget} within which a granted permit may come back (its gate
 * grants through a {@link Pacer}).
 *
 * <p>How to drive it: every {@link #slice()} call {@link #refill()}, then take a token with {@link
 * #tryTake()} for each restart you grant, then call {@link #settle()} once no more can be granted
 * now. {@link #refill()} may lift the tokens above the capacity for a moment, so that actors that
 * wait get the full rate; {@link #settle()} caps what is left over at the capacity. A bucket starts
 * full.
 *
 * <p>Not thread-safe: one owner.
 */
public final class TokenBucket {

  /** The shortest slice {@link #forRate} cuts a period into, unless the period itself is shorter. */
  public static final Duration MIN_SLICE = Duration.ofMillis(100);

  private static final long MILLI = 1_000_000L;

  private final long sliceNanos;
  private double tokensPerSlice;
  private double capacity;
  private double tokens;

  private TokenBucket(long sliceNanos, double tokensPerSlice, double capacity, double tokens) {
    this.sliceNanos = sliceNanos;
    this.tokensPerSlice = tokensPerSlice;
    this.capacity = capacity;
    this.tokens = tokens;
  }

  /**
   * The bucket of a budget of {@code permits} per {@code period} with room for {@code burst}, of
   * which this owner enforces the share {@code 1/members} (1 for a budget of one actor system).
   *
   * <p>The period is cut into {@code k = max(1, min(permits, period / 100 ms))} slices, each adding
   * {@code permits / k / members} tokens; the slice is {@code period / k} rounded <em>up</em> to a
   * whole millisecond, because schedulers count in milliseconds: with slices of at least {@code
   * period / k}, no window of one period holds more than {@code k} refills, so no window of one
   * period grants more than {@code permits / members + capacity}. The rounding lowers the rate by
   * less than one millisecond per slice. The capacity is {@code max(1, burst / members)}.
   *
   * @param permits permits per period, {@code >= 1}
   * @param period the period, {@code >= 1 ms}
   * @param burst the capacity for one member, {@code >= 1}
   * @param members how many owners share the budget, {@code >= 1}
   * @return a full bucket
   * @throws NullPointerException if {@code period} is null
   * @throws IllegalArgumentException if a value is out of range
   */
  public static TokenBucket forRate(int permits, Duration period, int burst, int members) {
    Objects.requireNonNull(period, "period must not be null");
    Check.argument(permits >= 1, "permits", ">= 1", permits);
    Check.argument(period.compareTo(Duration.ofMillis(1)) >= 0, "period", ">= 1 ms", period);
    Check.argument(burst >= 1, "burst", ">= 1", burst);
    Check.argument(members >= 1, "members", ">= 1", members);
    long periodNanos = Check.saturatedNanos(period);
    long slices = Math.max(1, Math.min(permits, periodNanos / MIN_SLICE.toNanos()));
    // whole milliseconds, at most Long.MAX_VALUE nanoseconds (for periods of centuries)
    long sliceMillis =
        Math.min(ceilDiv(ceilDiv(periodNanos, slices), MILLI), Long.MAX_VALUE / MILLI);
    double capacity = Math.max(1.0, burst / (double) members);
    return new TokenBucket(
        sliceMillis * MILLI, permits / (double) slices / members, capacity, capacity);
  }

  /**
   * A bucket with explicit numbers.
   *
   * @param slice how often it is refilled, {@code > 0}
   * @param tokensPerSlice tokens added per slice, {@code >= 0}
   * @param capacity the most tokens left over after {@link #settle()}, {@code >= 0}
   * @param initialTokens the tokens it starts with, {@code >= 0}
   * @return a new bucket
   * @throws NullPointerException if {@code slice} is null
   * @throws IllegalArgumentException if a value is out of range
   */
  public static TokenBucket perSlice(
      Duration slice, double tokensPerSlice, double capacity, double initialTokens) {
    Check.positive(slice, "slice");
    Check.finiteAtLeast(tokensPerSlice, 0, "tokensPerSlice");
    Check.finiteAtLeast(capacity, 0, "capacity");
    Check.finiteAtLeast(initialTokens, 0, "initialTokens");
    return new TokenBucket(Check.saturatedNanos(slice), tokensPerSlice, capacity, initialTokens);
  }

  /** {@return how often the owner must call {@link #refill()}} */
  public Duration slice() {
    return Duration.ofNanos(sliceNanos);
  }

  /** {@return the slice in nanoseconds} */
  public long sliceNanos() {
    return sliceNanos;
  }

  /** {@return the tokens added by each {@link #refill()}} */
  public double tokensPerSlice() {
    return tokensPerSlice;
  }

  /** {@return the capacity: the most tokens left over after {@link #settle()}} */
  public double capacity() {
    return capacity;
  }

  /** {@return the tokens in the bucket now (fractions included)} */
  public double tokens() {
    return tokens;
  }

  /** One slice has passed: adds {@link #tokensPerSlice()} (not capped until {@link #settle()}). */
  public void refill() {
    tokens += tokensPerSlice;
  }

  /** {@return whether a whole token was there and was taken} */
  public boolean tryTake() {
    if (tokens >= 1.0) {
      tokens -= 1.0;
      return true;
    }
    return false;
  }

  /** Caps the tokens left over at the capacity. */
  public void settle() {
    tokens = Math.min(tokens, capacity);
  }

  /** {@return whether the bucket holds its capacity, so that refilling it changes nothing} */
  public boolean isFull() {
    return tokens >= capacity;
  }

  /**
   * Changes the refill and the capacity, keeping the tokens (capped at the new capacity).
   *
   * @param tokensPerSlice tokens added per slice, {@code >= 0}
   * @param capacity the new capacity, {@code >= 0}
   * @throws IllegalArgumentException if a value is out of range
   */
  public void reshape(double tokensPerSlice, double capacity) {
    Check.finiteAtLeast(tokensPerSlice, 0, "tokensPerSlice");
    Check.finiteAtLeast(capacity, 0, "capacity");
    this.tokensPerSlice = tokensPerSlice;
    this.capacity = capacity;
    settle();
  }

  /**
   * Sets the tokens (for example to empty the bucket).
   *
   * @param tokens the tokens, {@code >= 0}
   * @throws IllegalArgumentException if {@code tokens < 0}
   */
  public void setTokens(double tokens) {
    Check.finiteAtLeast(tokens, 0, "tokens");
    this.tokens = tokens;
  }

  @Override
  public String toString() {
    return "TokenBucket{slice=%s, tokensPerSlice=%s, capacity=%s, tokens=%s}"
        .formatted(slice(), tokensPerSlice, capacity, tokens);
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }
}
