package dev.supervision.backoff;

import java.time.Duration;

/**
 * The rules both kinds of {@link RestartBudget} share: a budget's name, and a number of permits per
 * period (a fixed budget's limit, an adaptive budget's ceiling and initial rate). Package-private:
 * not API.
 */
final class BudgetRules {

  /** The shortest period of a budget's rate. */
  static final Duration MIN_PERIOD = Duration.ofMillis(10);

  private BudgetRules() {}

  static void name(String name) {
    Require.nonNull(name, "name");
    Require.argument(!name.isBlank(), "name", "non-blank", "\"" + name + "\"");
  }

  /** Checks {@code permits} per {@code period}, naming {@code permits} and {@code period}. */
  static void rate(int permits, Duration period) {
    Require.argument(permits >= 1, "permits", ">= 1", permits);
    Require.positive(period, "period");
    Require.argument(period.compareTo(MIN_PERIOD) >= 0, "period", ">= " + MIN_PERIOD, period);
  }

  /** {@code permits / period} per second. */
  static double perSecond(int permits, Duration period) {
    return permits / (period.toNanos() / 1e9);
  }
}
