package dev.supervision.herd;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How the shared resource behaves once it is back: how many calls per second it serves, whether a
 * surge knocks it over again, and whether it starts cold; or, instead, a rate limiter in front of
 * it. Immutable and validated.
 *
 * <p>The <b>window model</b> (the default): capacity is enforced per {@value #WINDOW_MS} ms window,
 * aligned to the start of the outage: a window serves {@code capacity / 10} calls (first come, first
 * served) and every call beyond that fails. A window that is offered more than {@code crashFactor}
 * times its capacity (counting only calls made while the resource is up) knocks the resource down
 * again for {@code crashFor}. A cold resource serves {@value #COLD_START_PERCENT} % of its capacity
 * whenever it comes back (after the outage and after every crash) and rises linearly to 100 % over
 * {@link #COLD_RAMP}.
 *
 * <p>The <b>limiter</b> ({@link #limiter(int, int)}, {@code --limiter RATE:BURST}): the resource sits
 * behind a rate limiter with the semantics of nginx's {@code limit_req ... burst=B nodelay}: a leaky
 * bucket kept in thousandths of a request on a clock of whole milliseconds, which a request fills
 * by one and which leaks {@code rate} per second; a request that would fill it beyond {@code burst}
 * is rejected at once (nginx's 503) and changes nothing. With burst 0 (nginx's default) a request is
 * accepted only if at least {@code 1000 / rate} whole milliseconds have passed since the last one
 * accepted. The limiter never falls over: the crash settings do not apply.
 *
 * @param capacityPerSecond calls per second once back (the limiter's rate); {@code 0} for unlimited
 * @param crashFactor a window offered more than this many times its capacity knocks the resource
 *     over again; {@code 0} turns crashes off
 * @param crashFor how long a knocked-over resource stays down
 * @param cold whether the resource starts cold after the outage and after every crash
 * @param limiterBurst the limiter's burst ({@code >= 0}), or {@link #NO_LIMITER} for the window model
 */
public record ResourceSpec(
    int capacityPerSecond, double crashFactor, Duration crashFor, boolean cold, int limiterBurst) {

  /** The {@code limiterBurst} of the window model: no limiter. */
  public static final int NO_LIMITER = -1;

  /** The width of one capacity window, in milliseconds. */
  public static final int WINDOW_MS = 100;

  /** The share of capacity a cold resource starts with, in percent. */
  public static final int COLD_START_PERCENT = 25;

  /** How long a cold resource takes to reach full capacity. */
  public static final Duration COLD_RAMP = Duration.ofSeconds(10);

  /** An unlimited resource: every call succeeds as soon as it is back, and it never crashes. */
  public static final ResourceSpec UNLIMITED = new ResourceSpec(0, 0, Duration.ofSeconds(1), false);

  /**
   * The window model (no limiter).
   *
   * @param capacityPerSecond calls per second once back, {@code >= 0} (0 = unlimited)
   * @param crashFactor {@code 0} (off) or {@code >= 1}
   * @param crashFor how long a crash lasts, {@code > 0}
   * @param cold whether the resource starts cold
   * @throws ScenarioException if a value is outside its rule
   */
  public ResourceSpec(int capacityPerSecond, double crashFactor, Duration crashFor, boolean cold) {
    this(capacityPerSecond, crashFactor, crashFor, cold, NO_LIMITER);
  }

  /**
   * A resource behind an nginx-style rate limiter ({@code limit_req rate=RATEr/s burst=BURST
   * nodelay}), which never falls over.
   *
   * @param ratePerSecond requests per second, {@code >= 1}
   * @param burst the burst, {@code >= 0}
   * @return the spec
   * @throws ScenarioException if a value is outside its rule
   */
  public static ResourceSpec limiter(int ratePerSecond, int burst) {
    ScenarioException.require(ratePerSecond >= 1, "limiter", "a rate >= 1", ratePerSecond);
    ScenarioException.require(
        burst >= 0 && burst <= 1_000_000, "limiter", "a burst in [0, 1000000]", burst);
    return new ResourceSpec(ratePerSecond, 0, Duration.ofSeconds(1), false, burst);
  }

  /**
   * Whether calls go to a rate limiter instead of the window model.
   *
   * @return {@code limiterBurst >= 0}
   */
  public boolean limited() {
    return limiterBurst >= 0;
  }

  private static final long WINDOW_NANOS = WINDOW_MS * 1_000_000L;

  /**
   * Validates the settings.
   *
   * @param capacityPerSecond calls per second once back, {@code >= 0} (0 = unlimited)
   * @param crashFactor {@code 0} (off) or {@code >= 1}
   * @param crashFor how long a crash lasts, {@code > 0}
   * @param cold whether the resource starts cold
   * @param limiterBurst the limiter's burst, {@code >= 0}, or {@link #NO_LIMITER}
   * @throws NullPointerException if {@code crashFor} is null
   * @throws ScenarioException if a value is outside its rule
   */
  public ResourceSpec {
    Objects.requireNonNull(crashFor, "crashFor");
    ScenarioException.require(
        capacityPerSecond >= 0, "capacity", ">= 0 (0 = unlimited)", capacityPerSecond);
    ScenarioException.require(
        capacityPerSecond <= 100_000_000, "capacity", "<= 100000000", capacityPerSecond);
    ScenarioException.require(
        crashFactor == 0 || (crashFactor >= 1 && crashFactor <= 1000),
        "crashFactor",
        "0 (off) or in [1, 1000]",
        crashFactor);
    ScenarioException.require(
        !crashFor.isNegative()
            && !crashFor.isZero()
            && crashFor.compareTo(Duration.ofHours(1)) <= 0,
        "crashFor",
        "in (0, 1h]",
        crashFor.toMillis() + "ms");
    ScenarioException.require(limiterBurst >= NO_LIMITER, "limiter", "a burst >= 0", limiterBurst);
    ScenarioException.require(
        limiterBurst == NO_LIMITER || (capacityPerSecond >= 1 && !cold && crashFactor == 0),
        "limiter",
        "a rate >= 1, not cold, without crashes",
        capacityPerSecond);
  }

  /**
   * Whether the capacity is unlimited.
   *
   * @return {@code capacityPerSecond == 0}
   */
  public boolean unlimited() {
    return capacityPerSecond == 0;
  }

  /**
   * The capacity of one window, possibly fractional while cold.
   *
   * @param window the window's index since the outage began
   * @param upSinceNanos when the resource last came back (end of the outage or of the last crash)
   * @return calls the window may serve; {@code Double.POSITIVE_INFINITY} if unlimited
   */
  public double windowCapacity(long window, long upSinceNanos) {
    return windowCapacity(window, upSinceNanos, WINDOW_NANOS);
  }

  /**
   * The capacity of one window of another width (real mode enforces capacity per 100 ms of real
   * time, which is longer than 100 ms of model time when the run is sped up).
   *
   * @param window the window's index since the outage began
   * @param upSinceNanos when the resource last came back
   * @param windowNanos the window's width in model nanoseconds
   * @return calls the window may serve; {@code Double.POSITIVE_INFINITY} if unlimited
   */
  public double windowCapacity(long window, long upSinceNanos, long windowNanos) {
    if (unlimited()) {
      return Double.POSITIVE_INFINITY;
    }
    double full = capacityPerSecond * (windowNanos / 1e9);
    if (!cold) {
      return full;
    }
    double start = COLD_START_PERCENT / 100.0;
    double warmedNanos = Math.max(0, window * windowNanos - upSinceNanos);
    return full * Math.min(1.0, start + (1 - start) * warmedNanos / COLD_RAMP.toNanos());
  }

  /**
   * The physical limit: how long after the outage the resource needs to serve {@code cells} calls at
   * its capacity, if nothing crashes it (whole windows, so that the cold start is counted).
   *
   * @param cells the number of calls to serve
   * @param outageNanos when the outage ends
   * @return the time in nanoseconds after the outage's end, or 0 if unlimited
   */
  public long physicalLimitNanos(int cells, long outageNanos) {
    if (unlimited()) {
      return 0;
    }
    if (limited()) {
      return Math.round(cells * 1e9 / capacityPerSecond);
    }
    long window = outageNanos / WINDOW_NANOS;
    long served = 0;
    while (served < cells) {
      served += (long) (windowCapacity(window, outageNanos) + 1e-9);
      window++;
    }
    return window * WINDOW_NANOS - outageNanos;
  }

  /** The settings in words, for the table's header: {@code capacity 1,000/s (cold), crash at 3x for 1s}. */
  @Override
  public String toString() {
    if (unlimited()) {
      return "unlimited capacity";
    }
    if (limited()) {
      return String.format(
          Locale.ROOT,
          "rate limiter %,d requests/s, burst %d (nginx limit_req nodelay: excess rejected at once)",
          capacityPerSecond,
          limiterBurst);
    }
    String crash =
        crashFactor == 0
            ? "no crashes"
            : String.format(
                Locale.ROOT,
                "a 100 ms window offered > %sx its capacity knocks it over for %d ms",
                fmt(crashFactor),
                crashFor.toMillis());
    return String.format(
        Locale.ROOT,
        "capacity %,d calls/s%s, %s",
        capacityPerSecond,
        cold ? " (cold: " + COLD_START_PERCENT + " % rising to 100 % over 10 s)" : "",
        crash);
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
