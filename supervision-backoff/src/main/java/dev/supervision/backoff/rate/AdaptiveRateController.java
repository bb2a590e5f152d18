package dev.supervision.backoff.rate;

import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;
import java.util.Objects;

/**
 * Learns how many restarts per second a shared resource can take, from the outcomes of the restarts
 * it lets through: the controller of an adaptive {@link dev.supervision.backoff.RestartBudget}.
 * Pure, no randomness; time is the {@code nowNanos} the caller passes in (any origin, never
 * decreasing).
 *
 * <pre>{@code
 * AdaptiveRateController c = new AdaptiveRateController(AdaptiveRateController.Parameters.defaults());
 * // at the start of every SLICE (100 ms):
 * c.onSlice(now, waiting.size());
 * // whenever an actor waits (at a slice start, or when it arrives):
 * while (!waiting.isEmpty() && c.tryAcquire(now)) { startedAt.put(a = waiting.poll(), now); restart(a); }
 * // whenever a member of the group fails (including at its first failure):
 * c.onFailure(now, startedAt.getOrDefault(actor, AdaptiveRateController.NOT_GRANTED));
 * }</pre>
 *
 * <p>A restart that fails within the probation ({@link Parameters#probation()}, in whole slices,
 * rounded up) from its start is a <em>failure</em>, one that does not a <em>success</em>. Report
 * every failure of a member, granted or not, but not the permanent ones (not about the resource).
 *
 * <h2>The loop</h2>
 *
 * <ul>
 *   <li>{@link State#STEADY}: restarts pass at once, up to the ceiling ({@link
 *       Parameters#maxRate()}) if set. {@link Parameters#holdAfter()} failures in a second: HOLDING.
 *   <li>{@link State#HOLDING}: the resource is presumed down. One probe at a time, the first
 *       {@link Parameters#firstProbe()} after holding starts; while probes fail, the wait doubles,
 *       up to three first probes, counted from the slice after the one that saw the failure: with
 *       probes that fail at once, the first 100 ms after holding starts, the next 300 ms later,
 *       then every 400 ms. A probe that survives its probation: RAMPING.
 *   <li>{@link State#RAMPING}: a token bucket at the rate. <em>Slow start</em> from {@link
 *       Parameters#initialRate()}: x 2 per round trip (probation plus a slice) while actors wait.
 *       <em>Cut</em>: more than 10 % of a slice's grants failed, and at least two: 0.9 x the
 *       slice's goodput (successes per second), at once on the failures already reported and again
 *       when the slice is resolved; not below 0.85 x the best <em>clean</em> slice (within the
 *       10 %) of the last second, nor {@link Parameters#minRate()}. The smallest loss (two
 *       failures, at most 20 % of the slice) cuts to the goodput, not below that clean slice: one
 *       late tick behind a limiter without burst makes it at any rate. A loss within two slices of
 *       the cut that ended slow start forgets slow start's slices (a limiter's burst). <em>Growth
 *       </em> after slow start: 20 % per second while actors wait. <em>Restore</em>: if a cut's
 *       goodput is below the last clean slice, the next slice restores 0.9 x that slice (a limiter
 *       that rejects requests too close together takes fewer above its rate). A slice whose grants
 *       all failed: HOLDING, the next ramp from half the rate. A second with no waiting actor and
 *       no failure: STEADY.
 * </ul>
 *
 * <p>Not thread-safe: one owner.
 */
public final class AdaptiveRateController {

  /** The grant time to pass to {@link #onFailure} for a member that was not granted a restart. */
  public static final long NOT_GRANTED = Long.MIN_VALUE;

  /** The control interval, 100 ms: quick to react, yet long enough to hold outcomes to count. */
  public static final Duration SLICE = Duration.ofMillis(100);

  /** A probe that neither started nor failed within 1 s (far above any start) is given up. */
  public static final Duration PROBE_START_TIMEOUT = Duration.ofSeconds(1);

  private static final long SECOND = 1_000_000_000L;
  private static final long NONE = Long.MIN_VALUE;
  private static final long SLICE_NANOS = SLICE.toNanos();
  private static final double SLICE_SECONDS = SLICE_NANOS / (double) SECOND;

  // Why each number (the budget's documentation gives the same ones):
  // one second of slices: holdAfter, calm and sustained() count per second
  private static final int SECOND_SLICES = FailureWindow.SLICES;
  // up to 10 % of a slice may fail without a cut: below that, timing noise, not capacity
  private static final double TOLERANCE = 0.1;
  // a cut needs two failures in a slice: one rejection among a few grants is noise
  private static final int MIN_LOSS = 2;
  // two failures within 20 % of a slice are one late tick behind a limiter without burst
  private static final double SMALL_LOSS_SHARE = 2 * TOLERANCE;
  // a cut leaves 0.9 x goodput: a little below what survived, so the backlog behind it drains
  private static final double DECREASE = 0.9;
  // a cut keeps 0.85 x the best clean slice: below DECREASE, so a real drop is still followed
  private static final double RECALL = 0.85;
  // growth of 20 %/s wins back a 0.9 cut in half a second, overshooting 2 % a slice at most
  private static final double GROWTH = 0.2;
  // slow start doubles per round trip, as TCP's: a few round trips find the rate's scale
  private static final double SLOW_START_PER_ROUND_TRIP = 2;
  // a limiter's burst feeds the slice that found the loss and the next one: two slices
  private static final int BURST_SLICES = 2;
  // a ramp whose every grant failed started too high: the next one starts at half its rate
  private static final double START_AFTER_ALL_FAILED = 0.5;
  // the probe wait stops at three first probes: a resource back is found within 400 ms
  private static final int MAX_PROBE_WAIT = 3;
  // more doublings of the probe wait change nothing (MAX_PROBE_WAIT) and would overflow
  private static final int MAX_PROBE_DOUBLINGS = 30;
  // a bucket holds at least one token, so that a rate below one permit a slice still grants
  private static final double MIN_TOKENS = 1.0;
  private static final long PROBE_START_TIMEOUT_SLICES =
      Math.max(1, -Math.floorDiv(-PROBE_START_TIMEOUT.toNanos(), SLICE_NANOS));

  /** The controller's state. */
  public enum State {
    /** Restarts pass at once, up to the ceiling. */
    STEADY,
    /** The group keeps failing: restarts wait, except one probe at a time. */
    HOLDING,
    /** The resource is back: restarts pass at a rate learnt from their outcomes. */
    RAMPING
  }

  /** Why the rate changed. */
  public enum Reason {
    /** A probe survived: ramping starts at the initial rate. */
    PROBE_SURVIVED,
    /** Slow start doubled the rate (per round trip) because actors waited and nothing failed. */
    SLOW_START,
    /** The rate grew by the growth factor because actors waited and nothing failed. */
    GROWTH,
    /** Grants failed: the rate was cut to the measured goodput. */
    LOSS,
    /** The slice after a cut below the last clean slice: back to 0.9 x that slice's successes. */
    RESTORED,
    /** The controller continues from another controller's state and rate ({@link #takeOver}). */
    TAKEN_OVER,
    /** A lease from the learner of a cluster-wide budget set the state (see {@link LeaseHolder}). */
    LEASE,
    /** Every grant of a slice failed: back to holding. */
    ALL_FAILED,
    /** The group has recovered: back to steady. */
    RECOVERED,
    /** Failures piled up while steady: holding. */
    FAILURES
  }

  /** What the controller reports as it goes; every method does nothing by default. */
  public interface Listener {
    /**
     * The state changed.
     *
     * @param from the old state
     * @param to the new state
     * @param reason why
     * @param nowNanos when
     */
    default void stateChanged(State from, State to, Reason reason, long nowNanos) {}

    /**
     * The rate changed.
     *
     * @param from the old rate, permits per second
     * @param to the new rate, permits per second
     * @param goodput successes per second measured for a {@link Reason#LOSS}, else {@code NaN}
     * @param reason why
     * @param nowNanos when
     */
    default void rateChanged(
        double from, double to, double goodput, Reason reason, long nowNanos) {}

    /**
     * A probe was granted while holding.
     *
     * @param probes how many probes were granted since holding began, this one included
     * @param nowNanos when
     */
    default void probe(int probes, long nowNanos) {}
  }

  /**
   * The controller's parameters, an immutable value. The first four are an adaptive budget's
   * settings (see also {@link LeaseHolder#share}).
   *
   * @param probation how long a granted restart must survive to count as a success; default 100 ms
   * @param initialRate where ramping starts, permits per second; default 100
   * @param maxRate the ceiling, permits per second; {@code +Infinity} (the default) for none
   * @param holdAfter failures within one second that make a steady group hold; default 10
   * @param minRate the rate is never cut below this, permits per second; default 5, low enough that
   *     an overloaded resource hardly feels it, high enough that a group is never starved
   * @param firstProbe the first probe's delay after holding starts; default 100 ms, one slice
   */
  public record Parameters(
      Duration probation,
      double initialRate,
      double maxRate,
      int holdAfter,
      double minRate,
      Duration firstProbe) {

    /**
     * Validates every parameter.
     *
     * @param probation see the record's description
     * @param initialRate see the record's description
     * @param maxRate see the record's description
     * @param holdAfter see the record's description
     * @param minRate see the record's description
     * @param firstProbe see the record's description
     * @throws NullPointerException if a duration is null
     * @throws IllegalArgumentException if a value is out of range (the message names it)
     * @throws IllegalStateException if {@code minRate > maxRate}
     */
    public Parameters {
      Check.positive(probation, "probation");
      Check.positive(firstProbe, "firstProbe");
      Check.argument(
          initialRate > 0 && Double.isFinite(initialRate),
          "initialRate",
          "finite and > 0",
          initialRate);
      Check.argument(minRate > 0 && Double.isFinite(minRate), "minRate", "finite and > 0", minRate);
      Check.argument(maxRate > 0, "maxRate", "> 0", maxRate);
      Check.argument(holdAfter >= 1, "holdAfter", ">= 1", holdAfter);
      if (minRate > maxRate) {
        throw new IllegalStateException(
            "minRate (" + minRate + ") must be <= maxRate (" + maxRate + ")");
      }
    }

    /** {@return the defaults (see the record's parameters)} */
    public static Parameters defaults() {
      return new Parameters(
          Duration.ofMillis(100), 100, Double.POSITIVE_INFINITY, 10, 5, Duration.ofMillis(100));
    }

    /**
     * {@return a copy with another probation}
     *
     * @param probation the probation
     */
    public Parameters withProbation(Duration probation) {
      return new Parameters(probation, initialRate, maxRate, holdAfter, minRate, firstProbe);
    }

    /**
     * {@return a copy with another ceiling; the initial and least rates are lowered to it if above}
     *
     * @param maxRate permits per second, {@code > 0}
     * @throws IllegalArgumentException if {@code maxRate} is not {@code > 0} (the message names
     *     {@code maxRate}, not the rates lowered to it)
     */
    public Parameters withMaxRate(double maxRate) {
      Check.argument(maxRate > 0, "maxRate", "> 0", maxRate);
      return new Parameters(
          probation,
          Math.min(initialRate, maxRate),
          maxRate,
          holdAfter,
          Math.min(minRate, maxRate),
          firstProbe);
    }

    /**
     * {@return a copy with another initial rate}
     *
     * @param initialRate permits per second
     */
    public Parameters withInitialRate(double initialRate) {
      return new Parameters(probation, initialRate, maxRate, holdAfter, minRate, firstProbe);
    }

    /**
     * {@return a copy with another hold threshold}
     *
     * @param holdAfter failures within one second
     */
    public Parameters withHoldAfter(int holdAfter) {
      return new Parameters(probation, initialRate, maxRate, holdAfter, minRate, firstProbe);
    }
  }

  private final Parameters p;
  private final Listener listener;
  private final int probationSlices;
  private final double slowStartFactor;
  private final TokenBucket bucket;
  // by slice, a ring long enough to resolve one: grants started, their failures, actors waited
  private final int ring;
  private final int[] granted;
  private final int[] failed;
  private final boolean[] limited;
  private final FailureWindow failures = new FailureWindow();
  // the successes of the clean slices of the last second, and which slice each one is
  private final int[] cleanSuccesses = new int[SECOND_SLICES];
  private final long[] cleanSlice = new long[SECOND_SLICES];

  private long slice = NONE;
  private State state = State.STEADY;
  private double rate;
  private double startRate;
  private boolean slowStart;
  private long slowStartEnded = NONE; // the slice whose cut ended slow start
  // the slice of the last cut or ramp start: older slices neither cut nor grow
  private long holdUntil;
  private long probeAt = NONE; // the slice the next probe may go in
  private long probeSlice = NONE; // the slice the probe out started in
  private long probeGranted = NONE; // the slice of a probe granted but not started
  private int probes;
  private int calm;
  private int waiting;
  private double goodput = Double.NaN;
  private int clean; // the successes of the last resolved clean slice, 0 after a cut
  private double restoreTo = Double.NaN; // the rate to restore at the start of restoreSlice
  private long restoreSlice = NONE;

  /**
   * A controller with no listener.
   *
   * @param parameters its parameters
   */
  public AdaptiveRateController(Parameters parameters) {
    this(parameters, new Listener() {});
  }

  /**
   * A controller.
   *
   * @param parameters its parameters
   * @param listener told about state and rate changes and probes, on the caller's thread
   * @throws NullPointerException if an argument is null
   */
  public AdaptiveRateController(Parameters parameters, Listener listener) {
    this.p = Objects.requireNonNull(parameters, "parameters must not be null");
    this.listener = Objects.requireNonNull(listener, "listener must not be null");
    long probation = p.probation().toNanos();
    this.probationSlices = (int) Math.max(1, -Math.floorDiv(-probation, SLICE_NANOS));
    this.ring = probationSlices + 2;
    this.granted = new int[ring];
    this.failed = new int[ring];
    this.limited = new boolean[ring];
    forgetSustained(Long.MAX_VALUE);
    this.slowStartFactor =
        Math.pow(SLOW_START_PER_ROUND_TRIP, SLICE_NANOS / (double) (probation + SLICE_NANOS));
    this.rate = p.maxRate();
    this.startRate = p.initialRate();
    double ceiling = ceilingPerSlice();
    double tokens = Math.max(MIN_TOKENS, ceiling);
    this.bucket = TokenBucket.perSlice(SLICE, ceiling, tokens, tokens);
  }

  private void onNewSlice(long nowNanos) {
    if (waiting > 0) {
      limited[slot(slice - 1)] = true;
    }
    switch (state) {
      case STEADY -> {
        if (!Double.isInfinite(p.maxRate())) {
          refill();
        }
      }
      case HOLDING -> holding(nowNanos);
      case RAMPING -> ramping(nowNanos);
    }
  }

  /** HOLDING: gives up a probe that never started; a resolved probe ramps or waits for the next. */
  private void holding(long nowNanos) {
    if (probeGranted != NONE && slice - probeGranted > PROBE_START_TIMEOUT_SLICES) {
      probeGranted = NONE; // its actor never started: neither success nor failure
      nextProbe();
    }
    if (probeSlice != NONE && failed[slot(probeSlice)] > 0) {
      probeSlice = NONE;
      nextProbe();
    } else if (probeSlice != NONE && resolved() >= probeSlice) {
      probeSlice = NONE;
      startRamping(Reason.PROBE_SURVIVED, nowNanos);
      ramping(nowNanos); // the probe's slice is the first the ramp judges
    }
  }

  /**
   * RAMPING: remembers a clean slice, cuts early on the last slice's failures, restores after a
   * cut, then judges the resolved slice: all failed holds, a loss cuts, a clean slice with actors
   * waiting grows the rate; a calm second recovers; else the bucket refills at the rate.
   */
  private void ramping(long nowNanos) {
    long resolved = resolved();
    int g = granted[slot(resolved)];
    int f = failed[slot(resolved)];
    boolean waited = limited[slot(resolved)];
    if (g > f && f <= TOLERANCE * g && waited) {
      clean = g - f;
      int w = (int) Math.floorMod(resolved, (long) SECOND_SLICES);
      cleanSuccesses[w] = g - f;
      cleanSlice[w] = resolved;
    }
    int lastGranted = granted[slot(slice - 1)];
    int lastFailed = failed[slot(slice - 1)];
    // a cut early on the last slice's loss (more than TOLERANCE of its grants, and MIN_LOSS); a cut
    // or a ramp start sets holdUntil to its own slice, so slice - 1 is never before it
    if (lastFailed > TOLERANCE * lastGranted
        && lastFailed >= MIN_LOSS
        && lastGranted > lastFailed) {
      cut(lastGranted - lastFailed, lastFailed, nowNanos);
    }
    if (restoreSlice == slice && restoreTo > rate) {
      setRate(Math.min(p.maxRate(), restoreTo), Double.NaN, Reason.RESTORED, nowNanos);
    }
    if (g > 0 && f > TOLERANCE * g && resolved >= holdUntil) {
      if (g == f) {
        startRate = Math.max(p.minRate(), startRate * START_AFTER_ALL_FAILED);
        hold(Reason.ALL_FAILED, nowNanos);
        return;
      }
      if (f >= MIN_LOSS) {
        cut(g - f, f, nowNanos);
      }
    } else if (g > 0 && waited && resolved >= holdUntil) {
      double factor = slowStart ? slowStartFactor : 1 + GROWTH * SLICE_SECONDS;
      Reason why = slowStart ? Reason.SLOW_START : Reason.GROWTH;
      setRate(Math.min(p.maxRate(), rate * factor), Double.NaN, why, nowNanos);
    }
    calm = waiting == 0 && f == 0 ? calm + 1 : 0;
    if (calm >= SECOND_SLICES) {
      recover(Reason.RECOVERED, nowNanos);
      return;
    }
    double perSlice = rate * SLICE_SECONDS;
    bucket.reshape(perSlice, Math.max(MIN_TOKENS, perSlice));
    refill();
  }

  /**
   * A cut to the goodput of a lossy slice: {@link #DECREASE} x it, not below {@link #RECALL} x the
   * best clean slice of the last second; a small loss to the goodput, not below that slice.
   */
  private void cut(int successes, int failures, long nowNanos) {
    goodput = successes / SLICE_SECONDS;
    if (!slowStart && slowStartEnded != NONE && slice - slowStartEnded <= BURST_SLICES) {
      forgetSustained(slowStartEnded);
    }
    boolean small = failures <= MIN_LOSS && failures <= SMALL_LOSS_SHARE * (successes + failures);
    double least =
        small
            ? Math.max(goodput, sustained() / SLICE_SECONDS)
            : Math.max(DECREASE * goodput, RECALL * sustained() / SLICE_SECONDS);
    double next = Math.min(p.maxRate(), Math.max(p.minRate(), least));
    if (slowStart) {
      slowStartEnded = slice;
    }
    slowStart = false;
    holdUntil = slice;
    setRate(Math.min(rate, next), goodput, Reason.LOSS, nowNanos);
    // once per clean slice: a cut that finds the loss again does not restore again
    restoreTo = clean > 0 ? Math.min(p.maxRate(), DECREASE * clean / SLICE_SECONDS) : Double.NaN;
    restoreSlice = slice + 1;
    clean = 0;
  }

  /** The most successes of a resolved clean slice of the last second, 0 if none. */
  private int sustained() {
    long from = resolved() - SECOND_SLICES;
    int best = 0;
    for (int i = 0; i < SECOND_SLICES; i++) {
      if (cleanSlice[i] != NONE && cleanSlice[i] > from) {
        best = Math.max(best, cleanSuccesses[i]);
      }
    }
    return best;
  }

  private void forgetSustained(long before) {
    for (int i = 0; i < SECOND_SLICES; i++) {
      if (cleanSlice[i] < before) {
        cleanSlice[i] = NONE;
      }
    }
  }

  /**
   * Sets the next probe after a failed (or given up) one, seen at the start of this slice: the
   * wait, {@code min(MAX_PROBE_WAIT x firstProbe, firstProbe x 2^probes)}, counts from this slice.
   */
  private void nextProbe() {
    long first = p.firstProbe().toNanos();
    long wait = Math.min(MAX_PROBE_WAIT * first, first << Math.min(MAX_PROBE_DOUBLINGS, probes));
    probeAt = slice + slices(wait);
  }

  private void hold(Reason reason, long nowNanos) {
    enter(State.HOLDING, reason, nowNanos);
    forgetSustained(Long.MAX_VALUE);
    probes = 0;
    probeAt = slice + slices(p.firstProbe().toNanos());
    probeSlice = probeGranted = NONE;
  }

  private void startRamping(Reason reason, long nowNanos) {
    enter(State.RAMPING, reason, nowNanos);
    setRate(startRate, Double.NaN, reason, nowNanos);
    slowStart = true;
    slowStartEnded = NONE;
    holdUntil = slice;
    bucket.setTokens(0);
  }

  private void recover(Reason reason, long nowNanos) {
    enter(State.STEADY, reason, nowNanos);
    startRate = p.initialRate();
    double ceiling = ceilingPerSlice();
    bucket.reshape(ceiling, Math.max(MIN_TOKENS, ceiling));
  }

  private void enter(State to, Reason reason, long nowNanos) {
    State from = state;
    state = to;
    calm = 0;
    clean = 0;
    restoreTo = Double.NaN;
    listener.stateChanged(from, to, reason, nowNanos);
  }

  private void setRate(double to, double measured, Reason reason, long nowNanos) {
    double from = rate;
    rate = to;
    if (from != to || reason == Reason.LOSS) {
      listener.rateChanged(from, to, measured, reason, nowNanos);
    }
  }

  /** A slice's tokens, what is left over capped at the capacity. */
  private void refill() {
    bucket.refill();
    bucket.settle();
  }

  private void advance(long nowNanos) {
    long k = Math.floorDiv(nowNanos, SLICE_NANOS);
    if (slice == NONE) {
      slice = k;
      return;
    }
    // after this many slices with no call, a step changes nothing but the slice number: every
    // grant is resolved (ring), and a ramp with nobody waiting has returned to steady (a second)
    long last = Math.min(k, slice + ring + 2 * SECOND_SLICES);
    while (slice < last) {
      slice++;
      int i = slot(slice);
      granted[i] = 0;
      failed[i] = 0;
      limited[i] = false;
      onNewSlice(slice * SLICE_NANOS);
    }
    slice = Math.max(slice, k);
    failures.advanceTo(slice);
  }

  /** The slice whose grants' probation has just ended. */
  private long resolved() {
    return slice - 1 - probationSlices;
  }

  private int slot(long k) {
    return (int) Math.floorMod(k, (long) ring);
  }

  private static long slices(long nanos) {
    return Math.max(1, Math.round(nanos / (double) SLICE_NANOS));
  }

  private double ceilingPerSlice() {
    return Double.isInfinite(p.maxRate()) ? 0 : p.maxRate() * SLICE_SECONDS;
  }

  /**
   * The start of a slice: resolves outcomes, changes state and rate, refills the bucket. Call it
   * every {@link #SLICE}; a late call catches up with every slice passed.
   *
   * @param nowNanos the time now
   * @param waitingNow how many actors wait for a permit now
   * @return {@link #available()}
   */
  public int onSlice(long nowNanos, int waitingNow) {
    this.waiting = Math.max(0, waitingNow);
    advance(nowNanos);
    return available();
  }

  /**
   * {@return whether the restart may go} {@link #tryGrant}, then {@link #onStarted
   * onStarted(nowNanos, nowNanos)}: for a driver whose restarts start when granted.
   *
   * @param nowNanos the time now
   */
  public boolean tryAcquire(long nowNanos) {
    boolean granted = tryGrant(nowNanos);
    if (granted) {
      onStarted(nowNanos, nowNanos);
    }
    return granted;
  }

  /**
   * {@return whether a restart may go now, taking its permit} Its outcome counts from its start
   * ({@link #onStarted}), so a restart slow to start is never taken for one that survived. A probe
   * that neither starts nor fails within {@link #PROBE_START_TIMEOUT} is given up, as if failed.
   *
   * @param nowNanos the time now
   */
  public boolean tryGrant(long nowNanos) {
    advance(nowNanos);
    if (available() == 0) {
      return false;
    }
    if (state == State.HOLDING) {
      probeGranted = slice;
      probeAt = NONE;
      probes++;
      listener.probe(probes, nowNanos);
    } else if (!Double.isInfinite(rate())) {
      bucket.tryTake(); // available() saw a whole token
    }
    return true;
  }

  /**
   * The actor of a restart granted at {@code grantedAtNanos} has started: its probation starts now.
   * Report it once per grant (an actor that failed while starting: started, then failed). The start
   * of a probe given up counts as an ordinary grant.
   *
   * @param nowNanos the time now
   * @param grantedAtNanos when {@link #tryGrant} granted the restart
   */
  public void onStarted(long nowNanos, long grantedAtNanos) {
    advance(nowNanos);
    granted[slot(slice)]++;
    if (state == State.HOLDING
        && probeGranted != NONE
        && Math.floorDiv(grantedAtNanos, SLICE_NANOS) == probeGranted) {
      probeSlice = slice;
      probeGranted = NONE;
    }
  }

  /**
   * A member of the group failed.
   *
   * @param nowNanos the time now
   * @param startedAtNanos when this member's last granted restart started ({@link #onStarted}; for
   *     {@link #tryAcquire}, its grant), or {@link #NOT_GRANTED}; a failure within the probation
   *     after the start counts against the restart
   */
  public void onFailure(long nowNanos, long startedAtNanos) {
    advance(nowNanos);
    if (startedAtNanos != NOT_GRANTED) {
      long g = Math.floorDiv(startedAtNanos, SLICE_NANOS);
      if (g <= slice && slice - g <= probationSlices) {
        failed[slot(g)]++;
      }
    }
    failures.add(slice);
    if (state == State.STEADY && failures.count() >= p.holdAfter()) {
      hold(Reason.FAILURES, nowNanos);
    }
  }

  /**
   * Continues from another controller's state (a learner taking over, a node falling back when
   * its lease ends), as {@link Reason#TAKEN_OVER}: {@link State#STEADY} as after a recovery; {@link
   * State#HOLDING} with the first probe {@link Parameters#firstProbe()} from now; {@link
   * State#RAMPING} at {@code rate} (within the least rate and the ceiling), without slow start.
   *
   * @param state the state to continue in
   * @param rate the rate to ramp at, permits per second (used for {@link State#RAMPING} only)
   * @param nowNanos the time now
   * @throws NullPointerException if {@code state} is null
   * @throws IllegalArgumentException if {@code state} is {@link State#RAMPING} and {@code rate} is
   *     not finite and {@code > 0}
   */
  public void takeOver(State state, double rate, long nowNanos) {
    Objects.requireNonNull(state, "state must not be null");
    advance(nowNanos);
    switch (state) {
      case STEADY -> {
        if (this.state != State.STEADY) {
          recover(Reason.TAKEN_OVER, nowNanos);
        }
      }
      case HOLDING -> hold(Reason.TAKEN_OVER, nowNanos);
      case RAMPING -> {
        Check.argument(rate > 0 && Double.isFinite(rate), "rate", "finite and > 0", rate);
        probeSlice = probeGranted = probeAt = NONE;
        startRate = Math.min(p.maxRate(), Math.max(p.minRate(), rate));
        startRamping(Reason.TAKEN_OVER, nowNanos);
        slowStart = false;
        double perSlice = this.rate * SLICE_SECONDS;
        bucket.reshape(perSlice, Math.max(MIN_TOKENS, perSlice));
      }
    }
  }

  /**
   * Sets a {@link Pacer} to spread this controller's grants: at its {@link #rate()} (unlimited
   * while holding), with a burst of {@code 1 + rate * tick}, so that a driver ticking every {@code
   * tick} grants at each tick the permits due before the next. Call it before granting and after
   * each grant; grant when {@code pacer.available(now)} and {@link #tryAcquire} both allow it, then
   * take the pacer's permit. In any interval {@code d} it grants at most {@code 1 + rate * (d + 2 *
   * tick)}.
   *
   * @param pacer the pacer, made with the driver's tick as its quantum
   * @param controller the controller
   * @param tickNanos how often the driver calls, {@code >= 0}
   */
  public static void pace(Pacer pacer, AdaptiveRateController controller, long tickNanos) {
    pace(pacer, controller.rate(), tickNanos, false);
  }

  /** As {@link #pace(Pacer, AdaptiveRateController, long)}; on a clock see {@link LeaseHolder}. */
  static void pace(Pacer pacer, double rate, long tickNanos, boolean clock) {
    if (rate > 0 && !Double.isInfinite(rate)) {
      double perTick = rate * tickNanos / SECOND;
      pacer.setBurst(clock ? Math.max(1, Math.ceil(perTick - 1e-9)) : 1 + perTick);
      pacer.setRate(rate);
    } else {
      pacer.setRate(Double.POSITIVE_INFINITY);
    }
  }

  /**
   * {@return how many permits {@link #tryAcquire} would grant now ({@link Integer#MAX_VALUE} when
   * steady with no ceiling)}
   */
  public int available() {
    return switch (state) {
      case STEADY -> Double.isInfinite(p.maxRate()) ? Integer.MAX_VALUE : (int) bucket.tokens();
      case HOLDING -> probeSlice == NONE && probeAt != NONE && slice >= probeAt ? 1 : 0;
      case RAMPING -> (int) bucket.tokens();
    };
  }

  /** {@return the state} */
  public State state() {
    return state;
  }

  /**
   * {@return the rate it allows, permits per second: the ceiling when steady ({@code +Infinity} if
   * none), 0 when holding, the learnt rate when ramping}
   */
  public double rate() {
    return switch (state) {
      case STEADY -> p.maxRate();
      case HOLDING -> 0;
      case RAMPING -> rate;
    };
  }

  /** {@return the goodput measured at the last loss, successes per second; NaN before any} */
  public double goodput() {
    return goodput;
  }

  /** {@return the parameters} */
  public Parameters parameters() {
    return p;
  }

  /**
   * {@return whether nothing is left to resolve: steady, no recent failure, no grant in probation}
   * An owner may stop calling {@link #onSlice} while idle, and go on later with a time no earlier.
   */
  public boolean isIdle() {
    if (state != State.STEADY || failures.count() > 0) {
      return false;
    }
    for (int i = 0; i < ring; i++) {
      if (granted[i] > 0) {
        return false;
      }
    }
    return Double.isInfinite(p.maxRate()) || bucket.isFull();
  }

  @Override
  public String toString() {
    return "AdaptiveRateController{state=%s, rate=%s, goodput=%s}"
        .formatted(state, rate(), goodput);
  }
}
