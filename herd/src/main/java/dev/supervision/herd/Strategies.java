package dev.supervision.herd;

import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import java.awt.Color;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The registry of the herd table's rows, in the order they run: {@link #REGISTRY} is the one place
 * that lists them. To add a row, add one {@link Row} there; the command line, the table, the JSON and
 * the chart take it from there. Each row's strategy is a class of its own ({@code PekkoBackoff},
 * {@code Ours}, {@code OursWithBudget}, {@code OursAdaptive}, ...).
 */
public final class Strategies {

  /** The dispatcher that Pekko's immediate restart runs on, so that its spinning is bounded. */
  public static final String SPIN_DISPATCHER = "herd.spin-dispatcher";

  /** The id of the row that adds a fixed restart budget to full jitter. */
  public static final String BUDGET_ID = "full+budget";

  /** The id of the row that adds an adaptive restart budget to full jitter. */
  public static final String ADAPTIVE_ID = "adaptive";

  /** The stream row of Pekko's {@code RestartSource.withBackoff}. */
  public static final String STREAM_PEKKO_ID = "stream-pekko-0.2";

  /** The stream row of this library's {@code BackoffSource} with full jitter. */
  public static final String STREAM_FULL_ID = "stream-full";

  /** The stream row of this library's {@code BackoffSource} with full jitter and an adaptive budget. */
  public static final String STREAM_ADAPTIVE_ID = "stream-adaptive";

  /** The restart budget of that row: restarts per second for the whole herd. */
  public static final int BUDGET_PER_SECOND = 500;

  /**
   * One row of the registry.
   *
   * @param id the id on the command line and in {@code results.json}
   * @param summary what the row is, in a few words, for {@code --help}
   * @param color the row's colour in the chart
   * @param byDefault in which modes the row runs when {@code --strategies} is not given
   * @param modes the modes the row can run in
   * @param create makes the row's strategy for a scenario, given its id
   */
  public record Row(
      String id,
      String summary,
      Color color,
      Defaults byDefault,
      Modes modes,
      BiFunction<String, HerdScenario, HerdStrategy> create) {

    /**
     * Whether the row runs in a mode.
     *
     * @param exact {@code true} for exact mode
     * @return whether it can
     */
    public boolean runsIn(boolean exact) {
      return modes == Modes.BOTH || (exact ? modes == Modes.EXACT : modes == Modes.REAL);
    }
  }

  /** When a row runs without {@code --strategies}. */
  public enum Defaults {
    /** Only when asked for. */
    NEVER,
    /** By default in exact mode, where it costs next to nothing; only when asked for in real mode. */
    EXACT,
    /** By default in both modes. */
    ALWAYS;

    /**
     * Whether the row runs by default in a mode.
     *
     * @param exact {@code true} for exact mode
     * @return whether it does
     */
    public boolean in(boolean exact) {
      return this == ALWAYS || (this == EXACT && exact);
    }
  }

  /** The modes a row can run in. */
  public enum Modes {
    /** Real and exact mode. */
    BOTH,
    /** Real mode only: the row's timing cannot be modelled exactly. */
    REAL,
    /** Exact mode only. */
    EXACT
  }

  /** Every row, in table order. */
  public static final List<Row> REGISTRY =
      List.of(
          new Row(
              "pekko-restart",
              "Pekko restart(), no delay",
              Color.GRAY,
              Defaults.ALWAYS,
              Modes.REAL,
              (id, s) -> new PekkoImmediateRestart(id)),
          new Row(
              "pekko-backoff-0.0",
              "Pekko restartWithBackoff, randomFactor 0",
              new Color(0x8B, 0x00, 0x00),
              Defaults.NEVER,
              Modes.BOTH,
              (id, s) -> new PekkoBackoff(id, s, 0.0)),
          new Row(
              "pekko-backoff-0.2",
              "Pekko restartWithBackoff, randomFactor 0.2",
              new Color(0xE0, 0x7B, 0x00),
              Defaults.ALWAYS,
              Modes.BOTH,
              (id, s) -> new PekkoBackoff(id, s, 0.2)),
          new Row(
              "none",
              "ours, no jitter",
              new Color(0xD6, 0x27, 0x28),
              Defaults.EXACT,
              Modes.BOTH,
              (id, s) -> new Ours(id, s, Jitter.none())),
          new Row(
              "equal",
              "ours, equal jitter",
              new Color(0x94, 0x67, 0xBD),
              Defaults.NEVER,
              Modes.BOTH,
              (id, s) -> new Ours(id, s, Jitter.equal())),
          new Row(
              "decorrelated",
              "ours, decorrelated jitter",
              new Color(0x2C, 0xA0, 0x2C),
              Defaults.NEVER,
              Modes.BOTH,
              (id, s) -> new Ours(id, s, Jitter.decorrelated())),
          new Row(
              "full",
              "ours, full jitter",
              new Color(0x1F, 0x4E, 0xC8),
              Defaults.ALWAYS,
              Modes.BOTH,
              (id, s) -> new Ours(id, s, Jitter.full())),
          new Row(
              BUDGET_ID,
              "ours, full jitter + RestartBudget 500/s",
              new Color(0x00, 0x99, 0x99),
              Defaults.EXACT,
              Modes.BOTH,
              (id, s) -> new OursWithBudget(id, s)),
          new Row(
              ADAPTIVE_ID,
              "ours, full jitter + adaptive RestartBudget (not told the capacity)",
              new Color(0x00, 0x80, 0x00),
              Defaults.ALWAYS,
              Modes.BOTH,
              (id, s) -> new OursAdaptive(id, s)),
          new Row(
              STREAM_PEKKO_ID,
              "streams: Pekko RestartSource.withBackoff, randomFactor 0.2",
              new Color(0xC0, 0x60, 0x90),
              Defaults.NEVER,
              Modes.REAL,
              (id, s) -> new StreamRows.PekkoRestartSource(id, s)),
          new Row(
              STREAM_FULL_ID,
              "streams: ours, BackoffSource, full jitter",
              new Color(0x60, 0x90, 0xE0),
              Defaults.NEVER,
              Modes.REAL,
              (id, s) -> new StreamRows.OursSource(id, s, false)),
          new Row(
              STREAM_ADAPTIVE_ID,
              "streams: ours, BackoffSource, full jitter + adaptive RestartBudget",
              new Color(0x60, 0xC0, 0x60),
              Defaults.NEVER,
              Modes.REAL,
              (id, s) -> new StreamRows.OursSource(id, s, true)));

  private Strategies() {}

  /**
   * The restart budget of the {@link #BUDGET_ID} row, in model time: {@value #BUDGET_PER_SECOND}
   * restarts per second with the default burst.
   *
   * @return the budget
   */
  public static RestartBudget.Fixed budget() {
    return RestartBudget.of("herd", BUDGET_PER_SECOND, Duration.ofSeconds(1));
  }

  /**
   * The ids of the rows that run by default.
   *
   * @param exact whether for exact mode (rows without an exact model are left out)
   * @return the ids, in table order
   */
  public static List<String> defaultIds(boolean exact) {
    List<String> ids = new ArrayList<>();
    for (Row row : REGISTRY) {
      if (row.byDefault().in(exact) && row.runsIn(exact)) {
        ids.add(row.id());
      }
    }
    return ids;
  }

  /**
   * The ids of every row.
   *
   * @param exact whether for exact mode (rows without an exact model are left out)
   * @return the ids, in table order
   */
  public static List<String> allIds(boolean exact) {
    List<String> ids = new ArrayList<>();
    for (Row row : REGISTRY) {
      if (row.runsIn(exact)) {
        ids.add(row.id());
      }
    }
    return ids;
  }

  /**
   * A row's colour.
   *
   * @param id a strategy id
   * @return its colour, or {@code null} for a row outside the registry
   */
  public static Color color(String id) {
    return REGISTRY.stream()
        .filter(r -> r.id().equals(id))
        .map(Row::color)
        .findFirst()
        .orElse(null);
  }

  /**
   * Every registered strategy, configured for the scenario.
   *
   * @param scenario the scenario
   * @return the strategies by id, in table order
   */
  public static Map<String, HerdStrategy> standard(HerdScenario scenario) {
    Map<String, HerdStrategy> byId = new LinkedHashMap<>();
    for (Row row : REGISTRY) {
      byId.put(row.id(), row.create().apply(row.id(), scenario));
    }
    return byId;
  }
}
