package dev.supervision.herd;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The rows of the herd table, in the order they run. To add a row, add one entry to {@link
 * #standard(HerdScenario)}.
 */
public final class Strategies {

  /** The dispatcher that Pekko's immediate restart runs on, so that its spinning is bounded. */
  public static final String SPIN_DISPATCHER = "herd.spin-dispatcher";

  /** The id of the row that adds a restart budget to full jitter. */
  public static final String BUDGET_ID = "full+budget";

  /** The restart budget of that row: restarts per second for the whole herd. */
  public static final int BUDGET_PER_SECOND = 500;

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
   * Every standard strategy, configured with the scenario's backoff bounds.
   *
   * @param scenario the scenario
   * @return the strategies by id, in table order
   */
  public static Map<String, HerdStrategy> standard(HerdScenario scenario) {
    List<HerdStrategy> all = new ArrayList<>();
    all.add(new PekkoImmediateRestart());
    all.add(new PekkoBackoff(scenario, 0.0));
    all.add(new PekkoBackoff(scenario, 0.2));
    all.add(new Ours(scenario, "none", Jitter.none()));
    all.add(new Ours(scenario, "equal", Jitter.equal()));
    all.add(new Ours(scenario, "decorrelated", Jitter.decorrelated()));
    all.add(new Ours(scenario, "full", Jitter.full()));
    all.add(new OursWithBudget(scenario));
    Map<String, HerdStrategy> byId = new LinkedHashMap<>();
    for (HerdStrategy s : all) {
      byId.put(s.id(), s);
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
  static SplittableRandom randomFor(long seed, int index) {
    return new SplittableRandom(seed ^ (index * 0x9E3779B97F4A7C15L));
  }

  private static String millis(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  /** Pekko's {@code SupervisorStrategy.restart()}: no delay at all. */
  static final class PekkoImmediateRestart implements HerdStrategy {

    @Override
    public String id() {
      return "pekko-restart";
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
          return Behaviors.supervise(cell).onFailure(SupervisorStrategy.restart().withLoggingEnabled(false));
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
    private final double randomFactor;
    private final String description;

    PekkoBackoff(HerdScenario s, double randomFactor) {
      this.randomFactor = randomFactor;
      this.description = "Pekko restartWithBackoff(" + bounds(s) + ", " + randomFactor + ")";
    }

    @Override
    public String id() {
      return "pekko-backoff-" + randomFactor;
    }

    @Override
    public String description() {
      return description;
    }

    @Override
    public RealRun real(HerdScenario s) {
      SupervisorStrategy strategy =
          SupervisorStrategy.restartWithBackoff(
                  scaled(s.minBackoff(), s.scale()), scaled(s.maxBackoff(), s.scale()), randomFactor)
              .withLoggingEnabled(false);
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

    Ours(HerdScenario s, String id, Jitter jitter) {
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
          BackoffPolicy.exponential(scaled(s.minBackoff(), s.scale()), scaled(s.maxBackoff(), s.scale()))
              .withJitter(jitter)
              .withRandomSeed(s.seed())
              .withLoggingEnabled(false);
      return (cell, index) -> BackoffSupervisor.wrap(cell, policy);
    }

    /** Draws each cell's delays from the library's own schedule, {@link BackoffPolicy#delays}. */
    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      BackoffPolicy policy = BackoffPolicy.exponential(s.minBackoff(), s.maxBackoff()).withJitter(jitter);
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
    private final Ours full;
    private final String description;

    OursWithBudget(HerdScenario s) {
      this.full = new Ours(s, "full", Jitter.full());
      this.description = "ours, Jitter.full(), " + bounds(s) + ", budget " + BUDGET_PER_SECOND + "/s";
    }

    @Override
    public String id() {
      return BUDGET_ID;
    }

    @Override
    public String description() {
      return description;
    }

    /** The real library budget, its period scaled like every other duration of the run. */
    @Override
    public RealRun real(HerdScenario s) {
      RestartBudget model = budget();
      RestartBudget real = RestartBudget.of(model.getName(), model.getPermits(), scaled(model.getPeriod(), s.scale()))
          .withBurst(model.getBurst());
      BackoffPolicy policy =
          BackoffPolicy.exponential(scaled(s.minBackoff(), s.scale()), scaled(s.maxBackoff(), s.scale()))
              .withJitter(Jitter.full())
              .withRandomSeed(s.seed())
              .withLoggingEnabled(false)
              .withBudget(real);
      return (cell, index) -> BackoffSupervisor.wrap(cell, policy);
    }

    /**
     * Full jitter's delays, admitted by a model of the library's budget gate: a token bucket that
     * starts full with {@code burst} tokens, whose refill timer starts when it drops below full and
     * adds {@code permits / slices} tokens every {@code period / slices} ({@code slices = min(permits,
     * period / 100 ms)}), stopping when full again; waiting cells are served in arrival order.
     */
    @Override
    public Optional<ExactRun> exact(HerdScenario s) {
      ExactRun delays = full.exact(s).orElseThrow();
      RestartBudget b = budget();
      long period = b.getPeriod().toNanos();
      long slices = Math.max(1, Math.min(b.getPermits(), period / 100_000_000L));
      long slice = period / slices;
      double perSlice = b.getPermits() / (double) slices;
      double burst = b.getBurst();
      return Optional.of(new ExactRun() {
        double tokens = burst;
        boolean refilling;
        long nextTick;
        long lastAdmitted;

        @Override
        public long restartDelayNanos(int index, int attempt, long failedAtNanos) {
          return delays.restartDelayNanos(index, attempt, failedAtNanos);
        }

        @Override
        public long admitNanos(int index, long dueNanos) {
          long at = Math.max(dueNanos, lastAdmitted); // first come, first served
          refillUntil(at);
          while (tokens < 1.0) {
            at = nextTick;
            refillUntil(at);
          }
          tokens -= 1.0;
          if (!refilling) {
            refilling = true;
            nextTick = at + slice;
          }
          lastAdmitted = at;
          return at;
        }

        private void refillUntil(long t) {
          while (refilling && nextTick <= t) {
            tokens = Math.min(burst, tokens + perSlice);
            nextTick += slice;
            if (tokens >= burst) {
              refilling = false;
            }
          }
        }
      });
    }
  }

  /** The backoff bounds as they appear in descriptions: {@code 100ms, 20s}. */
  static String bounds(HerdScenario s) {
    return millis(s.minBackoff()) + ", " + millis(s.maxBackoff());
  }
}
