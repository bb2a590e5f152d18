package dev.supervision.backoff.rate;

import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;
import java.util.Objects;

/**
 * Learns how many restarts per second a shared resource can take, from the outcomes of the restarts
 * it lets through: the controller of an adaptive {@link dev.supervision.backoff.RestartBudget}. A
 * pure class: no actor, no clock, no randomness; time is the {@code nowNanos} the caller passes in
 * (any origin, never decreasing), so the gate actor drives it on Pekko's scheduler and a simulation
 * drives it with virtual time, through the same code.
 *
 * <h2>How to drive it</h2>
 *
 * <pre>{@code
 * AdaptiveRateController c = new AdaptiveRateController(AdaptiveRateController.Parameters.defaults());
 * // at the start of every slice (Parameters.slice, 100 ms by default):
 * c.onSlice(now, waiting.size());
 * // whenever an actor waits (at a slice start, or when it arrives):
 * while (!waiting.isEmpty() && c.tryAcquire(now)) { startedAt.put(a = waiting.poll(), now); restart(a); }
 * // whenever a member of the group fails (including at its first failure):
 * c.onFailure(now, startedAt.getOrDefault(actor, AdaptiveRateController.NOT_GRANTED));
 * }</pre>
 *
 * <p>{@link #tryAcquire} is for restarts that start when they are granted. A driver whose restarts
 * take time to start grants with {@link #tryGrant} and reports {@link #onStarted} when the restarted
 * actor has started: the grant's outcome is counted from its start, and until then it is neither a
 * success nor a failure. A started restart that fails within the probation ({@link
 * Parameters#probation()}, counted in whole slices, rounded up) is a <em>failure</em>; one with no
 * failure reported within it is a <em>success</em>. Report every failure of a member, granted
 * or not: failures of members that were not just granted tell the controller that the group is in
 * trouble. Failures that are not about the resource (permanent ones) should not be reported.
 *
 * <h2>States</h2>
 *
 * <ul>
 *   <li>{@link State#STEADY}: nothing wrong; restarts pass at once (up to the ceiling, {@link
 *       Parameters#maxRate()}, if one is set). {@link Parameters#holdAfter()} failures within one
 *       second move it to HOLDING.
 *   <li>{@link State#HOLDING}: the group keeps failing, so the resource is presumed down: restarts
 *       wait, except one probe at a time, the first {@link Parameters#firstProbe()} after entering;
 *       while probes fail, the next comes a wait after the slice that sees the failure, the wait
 *       doubling up to {@link Parameters#maxProbeInterval()}: with the defaults and probes that fail
 *       at once, probes 100 ms, then 300 ms, then 400 ms apart (a slice plus 200 ms, then plus 300
 *       ms). A probe that survives its probation moves it to RAMPING.
 *   <li>{@link State#RAMPING}: a token bucket at the current rate (refilled every slice, holding at
 *       most one slice of tokens). It starts at {@link Parameters#initialRate()} in slow start, which
 *       doubles the rate every round trip (probation plus one slice) while actors wait. When more than
 *       {@link Parameters#tolerance()} of a slice's grants fail (and more than one), the rate is cut
 *       to {@link Parameters#decrease()} times the goodput measured in that slice (its successes per
 *       second; at once, from the failures already reported, and again when the slice's probation
 *       has ended), but not below 0.85 times the most successes a slice of the last second got
 *       through while it stayed within the tolerance: rejections that are not the resource's
 *       capacity (a driver whose late ticks catch up at once sends a few grants together, which a
 *       limiter without burst rejects) do not make it forget the rate it just sustained. The
 *       smallest loss that counts (two failures, and at most twice the tolerance) cuts only
 *       to the goodput itself, and not below the successes of that clean slice: behind a limiter
 *       without burst one late tick makes such a loss at any rate. What slow start's slices got
 *       through is forgotten when the loss goes on within two slices of the cut
 *       that ended it (a limiter's burst, not its rate). Slow start ends at the first cut: from then
 *       on the rate grows by {@link Parameters#growth()} per second while actors wait. A cut holds
 *       for the slice it is made in; if the goodput it measured is
 *       below the successes of the last slice that stayed within the tolerance, the next slice
 *       restores {@link Parameters#decrease()} times those ({@link Reason#RESTORED}; once per cut):
 *       a limiter that rejects any request too close to the last one it accepted (nginx's {@code
 *       limit_req} without burst) takes fewer requests when offered a little more than its rate,
 *       so its goodput above the rate says less than the slice before did. Against a resource whose
 *       goodput is its capacity this never raises the rate. A slice whose grants all failed sends it back to HOLDING, and halves the
 *       rate the next RAMPING starts at. One second with no waiting actor and no failure returns it to
 *       STEADY.
 * </ul>
 *
 * <p>Not thread-safe: one owner.
 */
public final class AdaptiveRateController {

  /** The grant time to pass to {@link #onFailure} for a member that was not granted a restart. */
  public static final long NOT_GRANTED = Long.MIN_VALUE;

  /**
   * How long a probe granted by {@link #tryGrant} may go without starting or failing before it is
   * given up (neither success nor failure) and the next probe follows: 1 second.
   */
  public static final Duration PROBE_START_TIMEOUT = Duration.ofSeconds(1);

  private static final long SECOND = 1_000_000_000L;
  private static final long NONE = Long.MIN_VALUE;

  /** The fewest failures in a slice that make a cut. */
  private static final int MIN_LOSS = 2;

  /** A cut keeps at least this share of the successes a slice of the last second sustained. */
  private static final double RECALL = 0.85;

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
    /**
     * One slice after a cut to a goodput below the successes of the last slice that stayed within
     * the tolerance, the rate went back to the decrease factor times those (the goodput of a limiter
     * that rejects any request too close to the last one collapses above its rate).
     */
    RESTORED,
    /**
     * The controller continues from the state and rate another controller left (see {@link
     * #takeOver}).
     */
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
     * @param goodput the goodput measured (successes per second) for a {@link Reason#LOSS}, {@code NaN}
     *     otherwise
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
   * The controller's parameters, an immutable value.
   *
   * @param slice the control interval; default 100 ms
   * @param probation how long a granted restart must survive to count as a success; default 100 ms
   * @param initialRate where ramping starts, permits per second; default 100
   * @param minRate the rate is never cut below this, permits per second; default 5
   * @param maxRate the ceiling, permits per second; {@code +Infinity} (the default) for none
   * @param decrease the rate after a loss, as a fraction of the measured goodput; default 0.9
   * @param tolerance the share of a slice's grants that may fail without a cut; default 0.1
   * @param growth how much the rate grows per second after slow start while actors wait; default 0.2
   * @param firstProbe the first probe's delay after holding starts; default 100 ms
   * @param maxProbeInterval the longest wait for the next probe, counted from the slice after the one
   *     in which a probe's failure was reported; default 300 ms, so that probes that fail at once
   *     come every 400 ms
   * @param holdAfter failures within one second that make a steady group hold; default 10
   */
  public record Parameters(
      Duration slice,
      Duration probation,
      double initialRate,
      double minRate,
      double maxRate,
      double decrease,
      double tolerance,
      double growth,
      Duration firstProbe,
      Duration maxProbeInterval,
      int holdAfter) {

    /**
     * Validates every parameter.
     *
     * @param slice see the record's description
     * @param probation see the record's description
     * @param initialRate see the record's description
     * @param minRate see the record's description
     * @param maxRate see the record's description
     * @param decrease see the record's description
     * @param tolerance see the record's description
     * @param growth see the record's description
     * @param firstProbe see the record's description
     * @param maxProbeInterval see the record's description
     * @param holdAfter see the record's description
     * @throws NullPointerException if a duration is null
     * @throws IllegalArgumentException if a value is out of range (the message names it)
     */
    public Parameters {
      Check.positive(slice, "slice");
      Check.positive(probation, "probation");
      Check.positive(firstProbe, "firstProbe");
      Check.positive(maxProbeInterval, "maxProbeInterval");
      Check.argument(
          slice.compareTo(Duration.ofMillis(1)) >= 0 && slice.compareTo(Duration.ofSeconds(1)) <= 0,
          "slice",
          "between 1 ms and 1 s",
          slice);
      Check.argument(
          initialRate > 0 && Double.isFinite(initialRate),
          "initialRate",
          "finite and > 0",
          initialRate);
      Check.argument(minRate > 0 && Double.isFinite(minRate), "minRate", "finite and > 0", minRate);
      Check.argument(maxRate > 0, "maxRate", "> 0", maxRate);
      Check.argument(decrease > 0 && decrease <= 1, "decrease", "in (0, 1]", decrease);
      Check.argument(tolerance >= 0 && tolerance < 1, "tolerance", "in [0, 1)", tolerance);
      Check.argument(growth >= 0 && Double.isFinite(growth), "growth", "finite and >= 0", growth);
      Check.argument(holdAfter >= 1, "holdAfter", ">= 1", holdAfter);
      if (minRate > maxRate) {
        throw new IllegalStateException(
            "minRate (" + minRate + ") must be <= maxRate (" + maxRate + ")");
      }
    }

    /**
     * The defaults (see the record's parameters).
     *
     * @return the defaults
     */
    public static Parameters defaults() {
      return new Parameters(
          Duration.ofMillis(100),
          Duration.ofMillis(100),
          100,
          5,
          Double.POSITIVE_INFINITY,
          0.9,
          0.1,
          0.2,
          Duration.ofMillis(100),
          Duration.ofMillis(300),
          10);
    }

    /**
     * A copy with another probation.
     *
     * @param probation the probation
     * @return a new value
     */
    public Parameters withProbation(Duration probation) {
      return new Parameters(
          slice,
          probation,
          initialRate,
          minRate,
          maxRate,
          decrease,
          tolerance,
          growth,
          firstProbe,
          maxProbeInterval,
          holdAfter);
    }

    /**
     * A copy with another ceiling; the initial and minimal rates are lowered to it if above.
     *
     * @param maxRate permits per second, {@code > 0}
     * @return a new value
     * @throws IllegalArgumentException if {@code maxRate} is not {@code > 0} (the message names
     *     {@code maxRate}, not the rates lowered to it)
     */
    public Parameters withMaxRate(double maxRate) {
      Check.argument(maxRate > 0, "maxRate", "> 0", maxRate);
      return new Parameters(
          slice,
          probation,
          Math.min(initialRate, maxRate),
          Math.min(minRate, maxRate),
          maxRate,
          decrease,
          tolerance,
          growth,
          firstProbe,
          maxProbeInterval,
          holdAfter);
    }

    /**
     * A copy with another initial rate.
     *
     * @param initialRate permits per second
     * @return a new value
     */
    public Parameters withInitialRate(double initialRate) {
      return new Parameters(
          slice,
          probation,
          initialRate,
          minRate,
          maxRate,
          decrease,
          tolerance,
          growth,
          firstProbe,
          maxProbeInterval,
          holdAfter);
    }

    /**
     * A copy with another hold threshold.
     *
     * @param holdAfter failures within one second
     * @return a new value
     */
    public Parameters withHoldAfter(int holdAfter) {
      return new Parameters(
          slice,
          probation,
          initialRate,
          minRate,
          maxRate,
          decrease,
          tolerance,
          growth,
          firstProbe,
          maxProbeInterval,
          holdAfter);
    }
  }

  private final Parameters p;
  private final Listener listener;
  private final long sliceNanos;
  private final double sliceSeconds;
  private final int probationSlices;
  private final int ring;
  private final int[] granted;
  private final int[] failed;
  private final boolean[] limited;
  private final int windowSlices;
  private final int[] windowFailures;
  private final int calmSlices;
  private final double slowStartFactor;
  private final TokenBucket bucket;

  private long slice = NONE;
  private State state = State.STEADY;
  private int recentFailures;
  private double rate;
  private double startRate;
  private boolean slowStart;

  private long holdUntil;
  private long probeAt = NONE;
  private long probeSlice = NONE;

  /** The slice of a probe granted by {@link #tryGrant} whose actor has not started yet, or NONE. */
  private long probeGranted = NONE;

  private final long probeStartTimeoutSlices;
  private int probes;
  private int calm;
  private int waiting;
  private double goodput = Double.NaN;

  /**
   * The successes of the latest resolved slice whose failures stayed within the tolerance while
   * actors waited.
   */
  private int clean;

  /** The rate to restore at the start of {@link #restoreSlice}, or NaN. */
  private double restoreTo = Double.NaN;

  private long restoreSlice = NONE;

  /**
   * The successes of the resolved slices that stayed within the tolerance while actors waited, by
   * slice number modulo {@link #windowSlices} ({@link #cleanSlice} says which slice): the rates
   * recently sustained, so that a cut does not forget them.
   */
  private final int[] cleanSuccesses;

  private final long[] cleanSlice;

  /** The slice whose cut ended slow start, or {@link #NONE}. */
  private long slowStartEnded = NONE;

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
    this.sliceNanos = p.slice().toNanos();
    this.sliceSeconds = sliceNanos / (double) SECOND;
    this.probationSlices = (int) Math.max(1, -Math.floorDiv(-p.probation().toNanos(), sliceNanos));
    this.ring = probationSlices + 2;
    this.granted = new int[ring];
    this.failed = new int[ring];
    this.limited = new boolean[ring];
    this.windowSlices = (int) Math.max(1, Math.round(SECOND / (double) sliceNanos));
    this.probeStartTimeoutSlices =
        Math.max(1, -Math.floorDiv(-PROBE_START_TIMEOUT.toNanos(), sliceNanos));
    this.windowFailures = new int[windowSlices];
    this.calmSlices = windowSlices;
    this.cleanSuccesses = new int[windowSlices];
    this.cleanSlice = new long[windowSlices];
    forgetSustained(Long.MAX_VALUE);
    this.slowStartFactor =
        Math.pow(2, sliceNanos / (double) (p.probation().toNanos() + sliceNanos));
    this.rate = p.maxRate();
    this.startRate = p.initialRate();
    double ceilingPerSlice = ceilingPerSlice();
    this.bucket =
        TokenBucket.perSlice(
            p.slice(),
            ceilingPerSlice,
            Math.max(1.0, ceilingPerSlice),
            Math.max(1.0, ceilingPerSlice));
  }

  private double maxRate() {
    return p.maxRate();
  }

  private double minRate() {
    return p.minRate();
  }

  /**
   * Continues from where another controller left off (a learner that takes over from one that is
   * gone, or a node that falls back on its own controller when its lease ends): {@link
   * State#STEADY} as after a recovery; {@link State#HOLDING} with the first probe {@link
   * Parameters#firstProbe()} from now; {@link State#RAMPING} at {@code rate} (between the least
   * rate and the ceiling), growing by {@link Parameters#growth()} per second without slow start,
   * since the rate was learnt already. Reported as {@link Reason#TAKEN_OVER}.
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
        probeSlice = NONE;
        probeGranted = NONE;
        probeAt = NONE;
        startRate = Math.min(maxRate(), Math.max(minRate(), rate));
        startRamping(Reason.TAKEN_OVER, nowNanos);
        slowStart = false;
        double perSlice = this.rate * sliceSeconds;
        bucket.reshape(perSlice, Math.max(1.0, perSlice));
      }
    }
  }

  private double ceilingPerSlice() {
    return Double.isInfinite(maxRate()) ? 0 : maxRate() * sliceSeconds;
  }

  /**
   * Sets a {@link Pacer} that spreads this controller's grants: to the controller's {@link #rate()}
   * (unlimited while holding, when one probe at a time goes through), with a burst of {@code 1 +
   * rate * tick}, so that a driver that ticks every {@code tick} grants at each tick the permits due
   * before the next one and a slice's permits all fit in the slice. Call it before granting and
   * after each grant; grant only when {@code pacer.available(now)} and {@link #tryAcquire} both
   * allow it, then take the pacer's permit. In any interval {@code d}, such a driver grants at most
   * {@code 1 + rate * (d + 2 * tick)}.
   *
   * @param pacer the pacer, made with the driver's tick as its quantum
   * @param controller the controller
   * @param tickNanos how often the driver calls, {@code >= 0}
   */
  public static void pace(Pacer pacer, AdaptiveRateController controller, long tickNanos) {
    double rate = controller.rate();
    if (rate > 0 && !Double.isInfinite(rate)) {
      pacer.setBurst(1 + rate * tickNanos / 1e9);
      pacer.setRate(rate);
    } else {
      pacer.setRate(Double.POSITIVE_INFINITY);
    }
  }

  /**
   * The start of a slice: resolves outcomes, changes state and rate, refills the bucket. Call it
   * every {@link Parameters#slice()}; a late call catches up with every slice boundary passed.
   *
   * @param nowNanos the time now
   * @param waitingNow how many actors wait for a permit now
   * @return how many permits {@link #tryAcquire} would grant now
   */
  public int onSlice(long nowNanos, int waitingNow) {
    this.waiting = Math.max(0, waitingNow);
    advance(nowNanos);
    return available();
  }

  /**
   * Takes a permit for one restart now, if the controller allows one, for a restart that starts at
   * once: the same as {@link #tryGrant} followed, if it granted, by {@link #onStarted
   * onStarted(nowNanos, nowNanos)}. For drivers (simulations) in which a granted restart starts
   * when it is granted.
   *
   * @param nowNanos the time now
   * @return whether the restart may go
   */
  public boolean tryAcquire(long nowNanos) {
    if (!tryGrant(nowNanos)) {
      return false;
    }
    onStarted(nowNanos, nowNanos);
    return true;
  }

  /**
   * Takes a permit for one restart now, if the controller allows one. Its outcome is counted from
   * the moment its restarted actor has started ({@link #onStarted}): until then it is neither a
   * success nor a failure, however much time passes, so that a restart whose actor is slow to run
   * (a stalled machine, a clock that runs ahead of the actors) is never taken for one that survived.
   * A probe (the one restart let through while holding) whose actor has neither started nor failed
   * within {@link #PROBE_START_TIMEOUT} is given up, neither success nor failure, and the next probe
   * follows as after a failed one.
   *
   * @param nowNanos the time now
   * @return whether the restart may go
   */
  public boolean tryGrant(long nowNanos) {
    advance(nowNanos);
    switch (state) {
      case STEADY -> {
        if (!Double.isInfinite(maxRate()) && !bucket.tryTake()) {
          return false;
        }
      }
      case HOLDING -> {
        if (probeSlice != NONE || probeAt == NONE || slice < probeAt) {
          return false;
        }
        probeGranted = slice;
        probeAt = NONE;
        probes++;
        listener.probe(probes, nowNanos);
      }
      case RAMPING -> {
        if (!bucket.tryTake()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The actor of a restart granted by {@link #tryGrant} at {@code grantedAtNanos} has started: its
   * probation starts now. Report it once per grant; a restart whose actor failed while starting is
   * reported as started and then failed at the same time. A start reported for a probe that was
   * given up counts as an ordinary grant.
   *
   * @param nowNanos the time now
   * @param grantedAtNanos when {@link #tryGrant} granted the restart
   */
  public void onStarted(long nowNanos, long grantedAtNanos) {
    advance(nowNanos);
    granted[slot(slice)]++;
    if (state == State.HOLDING
        && probeGranted != NONE
        && Math.floorDiv(grantedAtNanos, sliceNanos) == probeGranted) {
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
      long g = Math.floorDiv(startedAtNanos, sliceNanos);
      if (g <= slice && slice - g <= probationSlices) {
        failed[slot(g)]++;
      }
    }
    windowFailures[(int) Math.floorMod(slice, (long) windowSlices)]++;
    recentFailures++;
    if (state == State.STEADY && recentFailures >= p.holdAfter()) {
      hold(Reason.FAILURES, nowNanos);
    }
  }

  /**
   * How many permits {@link #tryAcquire} would grant now ({@link Integer#MAX_VALUE} when steady with
   * no ceiling).
   *
   * @return the permits
   */
  public int available() {
    return switch (state) {
      case STEADY -> Double.isInfinite(maxRate()) ? Integer.MAX_VALUE : (int) bucket.tokens();
      case HOLDING -> probeSlice == NONE && probeAt != NONE && slice >= probeAt ? 1 : 0;
      case RAMPING -> (int) bucket.tokens();
    };
  }

  /**
   * The state.
   *
   * @return the state
   */
  public State state() {
    return state;
  }

  /**
   * The rate the controller allows, permits per second: the ceiling when steady ({@code +Infinity}
   * if none), 0 when holding, the learnt rate when ramping.
   *
   * @return the rate
   */
  public double rate() {
    return switch (state) {
      case STEADY -> maxRate();
      case HOLDING -> 0;
      case RAMPING -> rate;
    };
  }

  /**
   * The goodput measured at the last loss, successes per second; {@code NaN} before the first loss.
   *
   * @return the goodput
   */
  public double goodput() {
    return goodput;
  }

  /**
   * The parameters.
   *
   * @return the parameters
   */
  public Parameters parameters() {
    return p;
  }

  /**
   * Whether nothing is left to resolve: steady, no recent failure, no grant in probation. An owner
   * may stop calling {@link #onSlice} while idle; it must pass a time no earlier than before when it
   * starts again.
   *
   * @return {@code true} if idle
   */
  public boolean isIdle() {
    if (state != State.STEADY || recentFailures > 0) {
      return false;
    }
    for (int i = 0; i < ring; i++) {
      if (granted[i] > 0) {
        return false;
      }
    }
    return Double.isInfinite(maxRate()) || bucket.isFull();
  }

  // ---------------------------------------------------------------- the slice logic

  private int slot(long k) {
    return (int) Math.floorMod(k, (long) ring);
  }

  private void advance(long nowNanos) {
    long k = Math.floorDiv(nowNanos, sliceNanos);
    if (slice == NONE) {
      slice = k;
      return;
    }
    // after this many slices with no call, stepping changes nothing any more but the slice number:
    // every grant is resolved (ring), every failure has left the window, and a ramp with nobody
    // waiting has returned to steady (ring + calm)
    long last = Math.min(k, slice + ring + windowSlices + calmSlices);
    while (slice < last) {
      slice++;
      int i = slot(slice);
      granted[i] = 0;
      failed[i] = 0;
      limited[i] = false;
      int w = (int) Math.floorMod(slice, (long) windowSlices);
      recentFailures -= windowFailures[w];
      windowFailures[w] = 0;
      onNewSlice(slice * sliceNanos);
    }
    slice = Math.max(slice, k);
  }

  private void onNewSlice(long nowNanos) {
    long k = slice;
    if (waiting > 0) {
      limited[slot(k - 1)] = true;
    }
    long resolved = k - 1 - probationSlices;
    int ir = slot(resolved);
    int g = granted[ir];
    int f = failed[ir];
    boolean lim = limited[ir];
    if (state == State.HOLDING) {
      if (probeGranted != NONE && k - probeGranted > probeStartTimeoutSlices) {
        probeGranted = NONE; // its actor never started: neither success nor failure
        nextProbe(k);
      }
      if (probeSlice != NONE) {
        boolean probeFailed = failed[slot(probeSlice)] > 0;
        if (probeFailed || resolved >= probeSlice) {
          probeSlice = NONE;
          if (!probeFailed) {
            startRamping(Reason.PROBE_SURVIVED, nowNanos);
          } else {
            nextProbe(k);
          }
        }
      }
      if (state == State.HOLDING) {
        return; // the bucket is not used while holding; it is emptied when ramping starts
      }
    }
    if (state == State.RAMPING) {
      if (g > f && f <= p.tolerance() * g && lim) {
        clean = g - f;
        int w = (int) Math.floorMod(resolved, (long) windowSlices);
        cleanSuccesses[w] = g - f;
        cleanSlice[w] = resolved;
      }
      int gj = granted[slot(k - 1)];
      int fj = failed[slot(k - 1)];
      // no check against holdUntil: a cut or a ramp start sets it to the slice it runs in, so a
      // slice k - 1 that granted anything is never before it; gj == 0 fails gj - fj > 0
      if (lossy(gj, fj) && gj - fj > 0) {
        cut(gj - fj, fj, nowNanos); // early: the failures of the last slice are already known
      }
      if (restoreSlice == k && restoreTo > rate) {
        // the slice of the cut granted no more than its goodput; this one may take what a clean
        // slice took
        setRate(Math.min(maxRate(), restoreTo), Double.NaN, Reason.RESTORED, nowNanos);
      }
      if (g > 0 && f > p.tolerance() * g && resolved >= holdUntil) {
        int successes = g - f;
        if (successes == 0) {
          startRate = Math.max(minRate(), startRate / 2);
          hold(Reason.ALL_FAILED, nowNanos);
          return;
        }
        if (f >= MIN_LOSS) {
          cut(successes, f, nowNanos);
        }
      } else if (g > 0 && lim && resolved >= holdUntil) {
        double grown =
            Math.min(
                maxRate(), rate * (slowStart ? slowStartFactor : 1 + p.growth() * sliceSeconds));
        setRate(grown, Double.NaN, slowStart ? Reason.SLOW_START : Reason.GROWTH, nowNanos);
      }
      if (waiting == 0 && f == 0) {
        if (++calm >= calmSlices) {
          recover(Reason.RECOVERED, nowNanos);
          return;
        }
      } else {
        calm = 0;
      }
      double perSlice = rate * sliceSeconds;
      bucket.reshape(perSlice, Math.max(1.0, perSlice));
      bucket.refill();
      bucket.settle();
      return;
    }
    if (!Double.isInfinite(maxRate())) {
      bucket.refill();
      bucket.settle();
    }
  }

  /**
   * Sets the next probe after a failed (or given up) one, seen at the start of slice {@code k}: the
   * wait, {@code min(maxProbeInterval, firstProbe * 2^probes)}, is counted
   * from slice {@code k}, the slice after the one in which the failure was reported. So a probe that
   * fails at once is followed one slice plus the wait later: with the defaults 300 ms after the
   * first probe, then every 400 ms.
   */
  private void nextProbe(long k) {
    long interval =
        Math.min(p.maxProbeInterval().toNanos(), p.firstProbe().toNanos() << Math.min(30, probes));
    probeAt = k + Math.max(1, Math.round(interval / (double) sliceNanos));
  }

  private void startRamping(Reason reason, long nowNanos) {
    enter(State.RAMPING, reason, nowNanos);
    setRate(startRate, Double.NaN, reason, nowNanos);
    slowStart = true;
    slowStartEnded = NONE;
    holdUntil = slice;
    bucket.setTokens(0);
  }

  /**
   * Whether a slice's failures call for a cut: more than the tolerance, and more than one (one
   * rejection in a slice of a few grants is noise, not the resource's capacity).
   */
  private boolean lossy(int grants, int failures) {
    return failures > p.tolerance() * grants && failures >= MIN_LOSS;
  }

  /** Forgets the sustained successes of the slices before {@code before}. */
  private void forgetSustained(long before) {
    for (int i = 0; i < windowSlices; i++) {
      if (cleanSlice[i] < before) {
        cleanSlice[i] = NONE;
      }
    }
  }

  /**
   * Whether a loss is the smallest that counts: {@link #MIN_LOSS} failures, and no more than twice
   * the tolerance of the slice's grants. Such a loss cuts only to the
   * goodput, and not below the most a clean slice of the last second got through: behind a
   * limiter without burst, a scheduler tick that runs a millisecond or two late brings its grant
   * that much closer to the next one, which the limiter rejects whatever the rate; a cut below
   * what the last second sustained only lowers the rate for the second that the growth needs to
   * win it back.
   */
  private boolean smallLoss(int successes, int failures) {
    return failures <= MIN_LOSS && failures <= 2 * p.tolerance() * (successes + failures);
  }

  /**
   * The least rate a cut keeps: {@link #RECALL} times what a clean slice of the last second
   * sustained.
   */
  private double floorOfACut() {
    return RECALL * sustained() / sliceSeconds;
  }

  /**
   * The most successes a resolved slice of the last second got through while it stayed within the
   * tolerance, 0 if none.
   */
  private int sustained() {
    long from = slice - 1 - probationSlices - windowSlices;
    int best = 0;
    for (int i = 0; i < windowSlices; i++) {
      if (cleanSlice[i] != NONE && cleanSlice[i] > from) {
        best = Math.max(best, cleanSuccesses[i]);
      }
    }
    return best;
  }

  private void cut(int successes, int failures, long nowNanos) {
    goodput = successes / sliceSeconds;
    if (!slowStart && slowStartEnded != NONE && slice - slowStartEnded <= 2) {
      // the loss went on right after slow start ended: what its slices got through may have been a
      // limiter's burst, not its rate
      forgetSustained(slowStartEnded);
    }
    double least =
        smallLoss(successes, failures)
            ? Math.max(goodput, sustained() / sliceSeconds)
            : Math.max(p.decrease() * goodput, floorOfACut());
    double next = Math.min(maxRate(), Math.max(minRate(), least));
    if (slowStart) {
      slowStartEnded = slice;
    }
    slowStart = false;
    holdUntil = slice;
    setRate(Math.min(rate, next), goodput, Reason.LOSS, nowNanos);
    // once per clean slice: a cut that finds the loss again does not restore again
    restoreTo = clean > 0 ? Math.min(maxRate(), p.decrease() * clean / sliceSeconds) : Double.NaN;
    restoreSlice = slice + 1;
    clean = 0;
  }

  private void setRate(double to, double measured, Reason reason, long nowNanos) {
    double from = rate;
    rate = to;
    if (from != to || reason == Reason.LOSS) {
      listener.rateChanged(from, to, measured, reason, nowNanos);
    }
  }

  private void hold(Reason reason, long nowNanos) {
    enter(State.HOLDING, reason, nowNanos);
    forgetSustained(Long.MAX_VALUE);
    probes = 0;
    probeAt = slice + Math.max(1, Math.round(p.firstProbe().toNanos() / (double) sliceNanos));
    probeSlice = NONE;
    probeGranted = NONE;
  }

  private void recover(Reason reason, long nowNanos) {
    enter(State.STEADY, reason, nowNanos);
    startRate = p.initialRate();
    double ceiling = ceilingPerSlice();
    bucket.reshape(ceiling, Math.max(1.0, ceiling));
  }

  private void enter(State to, Reason reason, long nowNanos) {
    State from = state;
    state = to;
    calm = 0;
    clean = 0;
    restoreTo = Double.NaN;
    listener.stateChanged(from, to, reason, nowNanos);
  }

  @Override
  public String toString() {
    return "AdaptiveRateController{state="
        + state
        + ", rate="
        + rate()
        + ", goodput="
        + goodput
        + "}";
  }
}
