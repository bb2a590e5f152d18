package dev.supervision.herd;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.AdaptiveRateController;
import dev.supervision.backoff.spi.Pacer;
import java.awt.Color;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.IntConsumer;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The rows of the herd table, in the order they run: {@link #REGISTRY} is the one place that lists
 * them. To add a row, add one {@link Row} there; the command line, the table, the JSON and the chart
 * take it from there.
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
  public static RestartBudget budget() {
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

  /**
   * A duration in real time.
   *
   * @param model a model duration
   * @param scale real time per model time
   * @return {@code model * scale}, at least 1 ns
   */
  static Duration scaled(Duration model, double scale) {
    return Duration.ofNanos(Math.max(1, Math.round(model.toNanos() * scale)));
  }

  /** An independent, reproducible random source per cell. */
  /**
   * A row's policy with the scenario's logging: off, the policy's defaults (aggregated for a
   * policy with a budget), or the defaults without aggregation.
   *
   * @param policy the row's policy, with its default logging
   * @param s the scenario
   * @return the policy to use
   */
  static BackoffPolicy logged(BackoffPolicy policy, HerdScenario s) {
    return switch (s.logging()) {
      case OFF -> policy.withLoggingEnabled(false);
      case DEFAULTS -> policy;
      case UNAGGREGATED -> policy.withAggregatedLogging(false);
    };
  }

  static SplittableRandom randomFor(long seed, int index) {
    return new SplittableRandom(seed ^ (index * 0x9E3779B97F4A7C15L));
  }

  private static String millis(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  /** Pekko's {@code SupervisorStrategy.restart()}: no delay at all. */
  static final class PekkoImmediateRestart implements HerdStrategy {
    private final String id;

    PekkoImmediateRestart(String id) {
      this.id = id;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String description() {
      return "Pekko restart() (immediate)";
    }

    @Override
    public RealRun real(HerdScenario scenario) {
      return new RealRun() {
        @Override
        public Behavior<Cell.Command> supervise(Behavior<Cell.Command> cell, int index) {
          return Behaviors.supervise(cell)
              .onFailure(
                  SupervisorStrategy.restart()
                      .withLoggingEnabled(scenario.logging() != HerdScenario.Logging.OFF));
        }

        @Override
        public Props props() {
          return DispatcherSelector.fromConfig(SPIN_DISPATCHER);
        }
      };
    }

    @Override
    public Optional<ExactRun> exact(HerdScenario scenario) {
      return Optional.empty();
    }
  }

  /** Pekko's {@code SupervisorStrategy.restartWithBackoff(min, max, randomFactor)}. */
  static final class PekkoBackoff implements HerdStrategy {
    private final String id;
    private final double randomFactor;
    private final String description;

    PekkoBackoff(String id, HerdScenario s, double randomFactor) {
      this.id = id;
      this.randomFactor = randomFactor;
      this.description = "Pekko restartWithBackoff(" + bounds(s) + ", " + randomFactor + ")";
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String description() {
      return description;
    }

    @Override
    public RealRun real(HerdScenario s) {
      SupervisorStrategy strategy =
          SupervisorStrategy.restartWithBackoff(
                  scaled(s.minBackoff(), s.scale()),
                  scaled(s.maxBackoff(), s.scale()),
                  randomFactor)
              .withLoggingEnabled(s.logging() != HerdScenario.Logging.OFF);
      return (cell, index) -> Behaviors.supervise(cell).onFailure(strategy);
    }

    /**
     * Models Pekko 1.7.0's {@code RestartSupervisor.calculateDelay}: {@code min(max, min *
     * 2^restartCount) * (1 + u * randomFactor)} with {@code restartCount = attempt - 1}. Pekko draws
     * {@code u} from {@code ThreadLocalRandom}, which cannot be seeded; the model draws it from a
     * seeded generator per cell instead.
     */
    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      long min = s.minBackoff().toNanos();
      long max = s.maxBackoff().toNanos();
      SplittableRandom[] randoms = new SplittableRandom[s.cells()];
      return Optional.of(
          (index, attempt, failedAt) -> {
            if (randoms[index] == null) {
              randoms[index] = randomFor(s.seed(), index);
            }
            double bound = Math.min(max, min * Math.pow(2, attempt - 1));
            return (long) (bound * (1.0 + randoms[index].nextDouble() * randomFactor));
          });
    }
  }

  /** This library: {@code BackoffSupervisor.wrap} with one of the standard jitters. */
  static final class Ours implements HerdStrategy {
    private final String id;
    private final Jitter jitter;
    private final String description;

    Ours(String id, HerdScenario s, Jitter jitter) {
      this.id = id;
      this.jitter = jitter;
      this.description = "ours, Jitter." + id + "(), " + bounds(s);
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String description() {
      return description;
    }

    @Override
    public RealRun real(HerdScenario s) {
      BackoffPolicy policy =
          BackoffPolicy.exponential(
                  scaled(s.minBackoff(), s.scale()), scaled(s.maxBackoff(), s.scale()))
              .withJitter(jitter)
              .withRandomSeed(s.seed());
      return (cell, index) -> BackoffSupervisor.wrap(cell, logged(policy, s));
    }

    /** Draws each cell's delays from the library's own schedule, {@link BackoffPolicy#delays}. */
    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      BackoffPolicy policy =
          BackoffPolicy.exponential(s.minBackoff(), s.maxBackoff()).withJitter(jitter);
      List<Iterator<Duration>> delays = new ArrayList<>(Collections.nCopies(s.cells(), null));
      return Optional.of(
          (index, attempt, failedAt) -> {
            Iterator<Duration> cell = delays.get(index);
            if (cell == null) {
              cell = policy.delays(randomFor(s.seed(), index)).iterator();
              delays.set(index, cell);
            }
            return cell.next().toNanos();
          });
    }
  }

  /**
   * This library with full jitter and a {@link RestartBudget} shared by the whole herd: {@value
   * #BUDGET_PER_SECOND} restarts per second, default burst.
   */
  static final class OursWithBudget implements HerdStrategy {
    private final String id;
    private final Ours full;
    private final String description;

    OursWithBudget(String id, HerdScenario s) {
      this.id = id;
      this.full = new Ours("full", s, Jitter.full());
      this.description =
          "ours, Jitter.full(), " + bounds(s) + ", budget " + BUDGET_PER_SECOND + "/s";
    }

    @Override
    public String id() {
      return id;
    }

    /** The time the budget needs to admit every cell once, at its fixed rate. */
    @Override
    public Duration extraTime(HerdScenario s) {
      return Duration.ofMillis(1000L * s.cells() / BUDGET_PER_SECOND);
    }

    @Override
    public String description() {
      return description;
    }

    /** The real library budget, its period scaled like every other duration of the run. */
    @Override
    public RealRun real(HerdScenario s) {
      RestartBudget model = budget();
      RestartBudget real =
          RestartBudget.of(
                  model.getName(), model.getPermits(), scaled(model.getPeriod(), s.scale()))
              .withBurst(model.getBurst());
      BackoffPolicy policy =
          BackoffPolicy.exponential(
                  scaled(s.minBackoff(), s.scale()), scaled(s.maxBackoff(), s.scale()))
              .withJitter(Jitter.full())
              .withRandomSeed(s.seed())
              .withBudget(real);
      return (cell, index) -> BackoffSupervisor.wrap(cell, logged(policy, s));
    }

    /**
     * Full jitter's delays, admitted by a model of the library's budget gate: the library's own
     * {@link Pacer} at {@code permits / period} with the budget's burst, driven at the gate's ticks
     * ({@link #gateTickNanos}); waiting cells are served in arrival order.
     */
    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      ExactRun delays = full.exact(s).orElseThrow();
      RestartBudget b = budget();
      return Optional.of(
          new ExactRun() {
            @Override
            public long restartDelayNanos(int index, int attempt, long failedAtNanos) {
              return delays.restartDelayNanos(index, attempt, failedAtNanos);
            }

            @Override
            public ExactGate gate() {
              return new BudgetGate(b, gateTickNanos(s));
            }
          });
    }
  }

  /**
   * The tick at which the library's budget gates grant in a run of this scenario: the scheduler's
   * resolution, 1 ms behind a rate limiter (real mode sets {@code pekko.scheduler.tick-duration = 1ms}
   * then, as the budget documentation recommends), Pekko's default of 10 ms otherwise.
   *
   * @param s the scenario
   * @return the tick in nanoseconds
   */
  static long gateTickNanos(HerdScenario s) {
    return s.resource().limited() ? 1_000_000L : 10_000_000L;
  }

  /**
   * The exact model of the library's budget gate, on the library's own {@link Pacer}: its clock is
   * its ticks, so a cell that asks between two ticks is judged at the last one; a cell whose delay
   * has passed restarts at once if none waits before it and the pacer has a permit, and waits
   * otherwise; waiting cells are released at the ticks at which the pacer has permits, in arrival
   * order.
   */
  static final class BudgetGate implements HerdStrategy.ExactGate {
    private final Pacer pacer;
    private final long tick;
    private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
    private long now;

    BudgetGate(RestartBudget b, long tickNanos) {
      this.tick = tickNanos;
      this.pacer =
          Pacer.of(
              b.getPermits() / (b.getPeriod().toNanos() / 1e9),
              Math.max(1, b.getBurst()),
              tickNanos);
    }

    @Override
    public boolean offer(int cell, long nowNanos) {
      now = nowNanos;
      if (waiting.isEmpty() && pacer.tryAcquire(floorTick(nowNanos, tick))) {
        return true;
      }
      waiting.add(cell);
      return false;
    }

    @Override
    public long nextWakeNanos() {
      if (waiting.isEmpty()) {
        return Long.MAX_VALUE;
      }
      long t = floorTick(now, tick);
      return Math.max(t + tick, ceilTick(pacer.nextAt(t), tick));
    }

    @Override
    public void wake(long nowNanos, IntConsumer release) {
      now = nowNanos;
      while (!waiting.isEmpty() && pacer.tryAcquire(nowNanos)) {
        release.accept(waiting.poll());
      }
    }
  }

  static long floorTick(long nanos, long tick) {
    return Math.floorDiv(nanos, tick) * tick;
  }

  static long ceilTick(long nanos, long tick) {
    return nanos >= Long.MAX_VALUE - tick ? Long.MAX_VALUE : -Math.floorDiv(-nanos, tick) * tick;
  }

  /**
   * This library with full jitter and an adaptive restart budget, which is not told the resource's
   * capacity: {@code RestartBudget.adaptive} in real mode. In exact mode the library's own {@link
   * AdaptiveRateController} decides and its own {@link Pacer} spreads the grants, driven as the
   * budget's gate drives them (see {@link AdaptiveGate}).
   */
  static final class OursAdaptive implements HerdStrategy {
    private final String id;
    private final Ours full;
    private final String description;

    OursAdaptive(String id, HerdScenario s) {
      this.id = id;
      this.full = new Ours("full", s, Jitter.full());
      this.description = "ours, Jitter.full(), " + bounds(s) + ", adaptive budget";
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String description() {
      return description;
    }

    /**
     * The real library budget, {@code RestartBudget.adaptive}, with its defaults. Its control slice
     * (100 ms of real time) is not scaled: at {@code --scale 0.5} it spans 200 ms of model time.
     */
    @Override
    public RealRun real(HerdScenario s) {
      BackoffPolicy policy =
          BackoffPolicy.exponential(
                  scaled(s.minBackoff(), s.scale()), scaled(s.maxBackoff(), s.scale()))
              .withJitter(Jitter.full())
              .withRandomSeed(s.seed())
              .withBudget(RestartBudget.adaptive("herd-adaptive"));
      return (cell, index) -> BackoffSupervisor.wrap(cell, logged(policy, s));
    }

    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      ExactRun delays = full.exact(s).orElseThrow();
      return Optional.of(
          new ExactRun() {
            @Override
            public long restartDelayNanos(int index, int attempt, long failedAtNanos) {
              return delays.restartDelayNanos(index, attempt, failedAtNanos);
            }

            @Override
            public ExactGate gate() {
              if (s.cluster().nodes() > 1 || s.cluster().joinAt() != null) {
                return new ClusterGate(
                    AdaptiveRateController.Parameters.defaults(),
                    s.cluster(),
                    s.cells(),
                    gateTickNanos(s));
              }
              return new AdaptiveGate(
                  new AdaptiveRateController(AdaptiveRateController.Parameters.defaults()),
                  s.cells(),
                  gateTickNanos(s));
            }
          });
    }
  }

  /**
   * The exact driver of an {@link AdaptiveRateController} and a {@link Pacer}, as the library's gate
   * drives them: its clock is its ticks, so a report or a request between two ticks counts at the
   * last one; every failure of a cell is reported with the time of its last grant; a cell whose
   * delay has passed restarts at once if none waits before it and both the pacer and the controller
   * allow it, and waits otherwise; at the first tick of every slice while the controller is not idle
   * it is told the slice has begun and how many wait; waiting cells are released at the ticks at
   * which both allow, in arrival order. The pacer is set by {@link AdaptiveRateController#pace}.
   */
  static final class AdaptiveGate implements HerdStrategy.ExactGate {
    private final AdaptiveRateController controller;
    private final Pacer pacer;
    private final long slice;
    private final long tick;
    private final long[] grantedAt;
    private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
    private long now;
    private long controllerSlice;

    /** The controller, for a cluster model that coordinates it. */
    AdaptiveRateController controller() {
      return controller;
    }

    /** How many cells wait. */
    int waitingCount() {
      return waiting.size();
    }

    /**
     * Takes the waiting cells that {@code moved} selects out of this gate, in their order (their
     * shard moved to another node).
     */
    List<Integer> evict(java.util.function.IntPredicate moved) {
      List<Integer> out = new ArrayList<>();
      waiting.removeIf(
          cell -> {
            if (moved.test(cell)) {
              out.add(cell);
              return true;
            }
            return false;
          });
      return out;
    }

    /** Moves this gate's notion of now, as a call would, so that its next wake-up is not past. */
    void touch(long nowNanos) {
      now = Math.max(now, nowNanos);
    }

    AdaptiveGate(AdaptiveRateController controller, int cells, long tickNanos) {
      this.controller = controller;
      this.slice = controller.parameters().slice().toNanos();
      this.tick = tickNanos;
      this.pacer = Pacer.of(Double.POSITIVE_INFINITY, 1, tickNanos);
      this.grantedAt = new long[cells];
      Arrays.fill(grantedAt, AdaptiveRateController.NOT_GRANTED);
    }

    @Override
    public void failed(int cell, long nowNanos) {
      now = nowNanos;
      controller.onFailure(floorTick(nowNanos, tick), grantedAt[cell]);
    }

    @Override
    public boolean offer(int cell, long nowNanos) {
      now = nowNanos;
      long t = floorTick(nowNanos, tick);
      if (waiting.isEmpty() && tryGrant(t)) {
        grantedAt[cell] = t;
        return true;
      }
      waiting.add(cell);
      return false;
    }

    private boolean tryGrant(long t) {
      AdaptiveRateController.pace(pacer, controller, tick);
      if (pacer.available(t) && controller.tryAcquire(t)) {
        pacer.tryAcquire(t);
        return true;
      }
      return false;
    }

    @Override
    public long nextWakeNanos() {
      long t = floorTick(now, tick);
      long nextSlice = (Math.floorDiv(t, slice) + 1) * slice;
      if (waiting.isEmpty()) {
        return controller.isIdle() ? Long.MAX_VALUE : nextSlice;
      }
      long paced =
          pacer.available(t) ? nextSlice : Math.max(t + tick, ceilTick(pacer.nextAt(t), tick));
      return Math.min(nextSlice, paced);
    }

    @Override
    public void wake(long nowNanos, IntConsumer release) {
      now = nowNanos;
      long k = Math.floorDiv(nowNanos, slice);
      if (k != controllerSlice) {
        controllerSlice = k;
        controller.onSlice(nowNanos, waiting.size());
      }
      while (!waiting.isEmpty() && tryGrant(nowNanos)) {
        int cell = waiting.poll();
        grantedAt[cell] = nowNanos;
        release.accept(cell);
      }
    }
  }

  /** The backoff bounds as they appear in descriptions: {@code 100ms, 20s}. */
  static String bounds(HerdScenario s) {
    return millis(s.minBackoff()) + ", " + millis(s.maxBackoff());
  }
}
