package dev.supervision.backoff.rate;

import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.rate.AdaptiveRateController.Listener;
import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.Objects;

/**
 * The loop of an {@link AdaptiveRateController}: its states, its transitions at each slice, and
 * every number with its reason. The controller's public methods call it; its class description
 * says what each state does.
 */
final class ControlLoop {

  private static final long NOT_GRANTED = AdaptiveRateController.NOT_GRANTED;
  private static final Duration SLICE = AdaptiveRateController.SLICE;
  private static final Duration PROBE_START_TIMEOUT = AdaptiveRateController.PROBE_START_TIMEOUT;
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
  private final CleanSlices cleanSlices = new CleanSlices();

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

  ControlLoop(Parameters parameters, Listener listener) {
    this.p = parameters;
    this.listener = listener;
    long probation = p.probation().toNanos();
    this.probationSlices = (int) Math.max(1, -Math.floorDiv(-probation, SLICE_NANOS));
    this.ring = probationSlices + 2;
    this.granted = new int[ring];
    this.failed = new int[ring];
    this.limited = new boolean[ring];
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
      cleanSlices.add(resolved, clean);
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
      cleanSlices.forget(slowStartEnded);
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
    return cleanSlices.best(resolved() - SECOND_SLICES);
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
    cleanSlices.forget(Long.MAX_VALUE);
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

  int onSlice(long nowNanos, int waitingNow) {
    this.waiting = Math.max(0, waitingNow);
    advance(nowNanos);
    return available();
  }

  boolean tryGrant(long nowNanos) {
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

  void onStarted(long nowNanos, long grantedAtNanos) {
    advance(nowNanos);
    granted[slot(slice)]++;
    if (state == State.HOLDING
        && probeGranted != NONE
        && Math.floorDiv(grantedAtNanos, SLICE_NANOS) == probeGranted) {
      probeSlice = slice;
      probeGranted = NONE;
    }
  }

  void onFailure(long nowNanos, long startedAtNanos) {
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

  void takeOver(State state, double rate, long nowNanos) {
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

  int available() {
    return switch (state) {
      case STEADY -> Double.isInfinite(p.maxRate()) ? Integer.MAX_VALUE : (int) bucket.tokens();
      case HOLDING -> probeSlice == NONE && probeAt != NONE && slice >= probeAt ? 1 : 0;
      case RAMPING -> (int) bucket.tokens();
    };
  }

  State state() {
    return state;
  }

  double rate() {
    return switch (state) {
      case STEADY -> p.maxRate();
      case HOLDING -> 0;
      case RAMPING -> rate;
    };
  }

  double goodput() {
    return goodput;
  }

  Parameters parameters() {
    return p;
  }

  boolean isIdle() {
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
}
