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
 * {@link State#STEADY}: restarts pass at once, up to the ceiling; {@link Parameters#holdAfter()}
 * failures in a second: {@link State#HOLDING}, where one probe at a time goes, the wait doubling
 * while probes fail; a probe that survives: {@link State#RAMPING}, a token bucket at a rate that
 * doubles per round trip (<em>slow start</em>), then grows 20 % per second while actors wait, and
 * is <em>cut</em> to the goodput of a slice that lost more than 10 % of its grants. A slice whose
 * grants all failed: HOLDING again; a calm second: STEADY. Each number is a named constant of the
 * loop, with its reason; the adaptive budget's documentation (docs/budgets.md) tells the whole
 * story.
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

  private final ControlLoop loop;

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
    this.loop =
        new ControlLoop(
            Objects.requireNonNull(parameters, "parameters must not be null"),
            Objects.requireNonNull(listener, "listener must not be null"));
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
    return loop.onSlice(nowNanos, waitingNow);
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
    return loop.tryGrant(nowNanos);
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
    loop.onStarted(nowNanos, grantedAtNanos);
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
    loop.onFailure(nowNanos, startedAtNanos);
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
    loop.takeOver(state, rate, nowNanos);
  }

  /**
   * {@return how many permits {@link #tryAcquire} would grant now ({@link Integer#MAX_VALUE} when
   * steady with no ceiling)}
   */
  public int available() {
    return loop.available();
  }

  /** {@return the state} */
  public State state() {
    return loop.state();
  }

  /**
   * {@return the rate it allows, permits per second: the ceiling when steady ({@code +Infinity} if
   * none), 0 when holding, the learnt rate when ramping}
   */
  public double rate() {
    return loop.rate();
  }

  /** {@return the goodput measured at the last loss, successes per second; NaN before any} */
  public double goodput() {
    return loop.goodput();
  }

  /** {@return the parameters} */
  public Parameters parameters() {
    return loop.parameters();
  }

  /**
   * {@return whether nothing is left to resolve: steady, no recent failure, no grant in probation}
   * An owner may stop calling {@link #onSlice} while idle, and go on later with a time no earlier.
   */
  public boolean isIdle() {
    return loop.isIdle();
  }

  @Override
  public String toString() {
    return "AdaptiveRateController{state=%s, rate=%s, goodput=%s}"
        .formatted(state(), rate(), goodput());
  }
}
