package dev.supervision.herd;

import java.util.Locale;

/** The scenario in words: the first lines of the output and the chart's subtitle. */
public final class ScenarioText {

  private ScenarioText() {}

  /**
   * The first line of the output: the scenario in words.
   *
   * @param s the scenario
   * @return one line
   */
  public static String header(HerdScenario s) {
    return "herd: "
        + resourceInWords(s)
        + "\n      backoff "
        + seconds(s.minBackoff().toMillis())
        + " .. "
        + seconds(s.maxBackoff().toMillis())
        + "; "
        + (s.exact()
            ? "exact mode (discrete-event), seed "
                + s.seed()
                + (s.cluster().nodes() > 1 || s.cluster().joinAt() != null
                    ? "; adaptive row on " + s.cluster().describe()
                    : "")
            : "real ActorSystem"
                + (s.scale() == 1.0
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        " at %sx speed (times below are unscaled)",
                        fmt(1 / s.scale())))
                + ", seed "
                + s.seed());
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.2f", d);
  }

  /**
   * The scenario's resource and outage, in words.
   *
   * @param s the scenario
   * @return one sentence, without its full stop
   */
  static String resourceInWords(HerdScenario s) {
    ResourceSpec r = s.resource();
    String resource =
        r.limited()
            ? String.format(
                Locale.ROOT,
                "then sits behind a rate limiter of %,d requests/s, burst %d (nginx limit_req"
                    + " nodelay)",
                r.capacityPerSecond(),
                r.limiterBurst())
            : r.unlimited()
                ? "then serves every call"
                : String.format(
                    Locale.ROOT,
                    "then serves %,d calls/s%s%s",
                    r.capacityPerSecond(),
                    r.cold() ? " from cold (25 % to 100 % in 10 s)" : "",
                    r.crashFactor() > 0
                        ? String.format(
                            Locale.ROOT,
                            " (> %sx that in 100 ms knocks it over for %s)",
                            fmt(r.crashFactor()),
                            seconds(r.crashFor().toMillis()))
                        : "");
    return String.format(
        Locale.ROOT,
        "%,d actors; the resource is down for %s, %s",
        s.cells(),
        seconds(s.outage().toMillis()),
        resource);
  }

  /** A duration in whole seconds if it is one, in milliseconds otherwise: {@code 2 s}, {@code 100 ms}. */
  static String seconds(long ms) {
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
  }
}
