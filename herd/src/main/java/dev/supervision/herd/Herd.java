package dev.supervision.herd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.Behavior;

/** Runs every strategy of a scenario, one after the other, in this JVM. */
public final class Herd {

  private Herd() {}

  /**
   * Resolves the scenario's strategy ids.
   *
   * @param scenario the scenario
   * @return the strategies, in the scenario's order
   * @throws IllegalArgumentException for an unknown id, or one without an exact model in exact mode
   */
  public static List<HerdStrategy> strategies(HerdScenario scenario) {
    Map<String, HerdStrategy> known = Strategies.standard(scenario);
    List<HerdStrategy> chosen = new ArrayList<>();
    for (String id : scenario.strategies()) {
      HerdStrategy s = known.get(id);
      if (s == null) {
        throw new ScenarioException(
            "strategies", "ids from " + String.join(",", known.keySet()), id);
      }
      boolean runs =
          Strategies.REGISTRY.stream()
              .filter(r -> r.id().equals(id))
              .findFirst()
              .map(r -> r.runsIn(scenario.exact()))
              .orElse(true);
      if (!runs && !scenario.exact()) {
        throw new ScenarioException(
            "strategies", "rows that run in real mode (" + id + " runs with --exact only)", id);
      }
      if (scenario.exact() && s.exact(scenario).isEmpty()) {
        throw new ScenarioException(
            "strategies",
            "rows with an exact model in exact mode ("
                + id
                + "'s calls depend on the machine's speed; drop it or drop --exact)",
            id);
      }
      chosen.add(s);
    }
    return chosen;
  }

  /**
   * Runs the scenario.
   *
   * @param scenario the scenario
   * @param progress told about each row while it runs
   * @return one result per strategy, in the scenario's order
   * @throws IllegalArgumentException if a strategy id is unknown or has no exact model in exact mode
   */
  public static List<StrategyResult> run(HerdScenario scenario, Progress progress) {
    List<HerdStrategy> strategies = strategies(scenario);
    if (!scenario.exact()) {
      warmUp(scenario, strategies);
    }
    List<StrategyResult> results = new ArrayList<>();
    int row = 0;
    for (HerdStrategy s : strategies) {
      row++;
      StrategyResult result =
          scenario.exact()
              ? ExactHerd.run(s, scenario, progress, row, strategies.size())
              : RealHerd.run(s, scenario, progress, row, strategies.size());
      progress.finished(row, strategies.size(), result);
      results.add(result);
    }
    return results;
  }

  /**
   * Runs one short, unmeasured herd in which the cells take turns among the strategies, so that
   * the first measured row does not pay for loading and compiling the failure paths (measured: a
   * cold first row needed a second to fail 1,000 cells, a warm one a few milliseconds). Pekko's
   * immediate restart is left out: it would bring the warm-up's {@code ActorSystem} down.
   */
  private static void warmUp(HerdScenario scenario, List<HerdStrategy> strategies) {
    List<HerdStrategy> parts = new ArrayList<>();
    for (HerdStrategy s : strategies) {
      if (!s.id().equals("pekko-restart")) {
        parts.add(s);
      }
    }
    if (parts.isEmpty()) {
      return;
    }
    HerdScenario small =
        new HerdScenario(
            Math.min(scenario.cells(), 2_000),
            Duration.ofMillis(300),
            Duration.ofMillis(10),
            Duration.ofMillis(100),
            1.0,
            scenario.seed(),
            false,
            List.of("warm-up"),
            scenario.outputDir());
    RealHerd.run(new Mixed(parts), small, Progress.NONE, 0, 0);
  }

  /** A strategy whose cells take turns among other strategies; used only to warm up. */
  private static final class Mixed implements HerdStrategy {
    private final List<HerdStrategy> parts;

    Mixed(List<HerdStrategy> parts) {
      this.parts = parts;
    }

    @Override
    public String id() {
      return "warm-up";
    }

    @Override
    public String description() {
      return "warm-up: cells take turns among " + parts.size() + " strategies";
    }

    @Override
    public RealRun real(HerdScenario scenario) {
      List<RealRun> runs = new ArrayList<>();
      for (HerdStrategy s : parts) {
        runs.add(s.real(scenario));
      }
      return new RealRun() {
        @Override
        public Behavior<Cell.Command> supervise(Behavior<Cell.Command> cell, int index) {
          return runs.get(index % runs.size()).supervise(cell, index);
        }

        @Override
        public Behavior<Cell.Command> cell(int index, SimulatedResource resource) {
          return runs.get(index % runs.size()).cell(index, resource);
        }
      };
    }

    @Override
    public Optional<ExactRun> exact(HerdScenario scenario) {
      return Optional.empty();
    }
  }
}
