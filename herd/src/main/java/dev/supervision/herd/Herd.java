package dev.supervision.herd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
        throw new IllegalArgumentException(
            "unknown strategy '" + id + "'; known: " + String.join(",", known.keySet()));
      }
      if (scenario.exact() && s.exact(scenario).isEmpty()) {
        throw new IllegalArgumentException(
            "strategy '" + id + "' has no exact model (its calls depend on the machine's speed); drop it or drop --exact");
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
    List<StrategyResult> results = new ArrayList<>();
    int row = 0;
    for (HerdStrategy s : strategies) {
      row++;
      results.add(
          scenario.exact()
              ? ExactHerd.run(s, scenario, progress, row, strategies.size())
              : RealHerd.run(s, scenario, progress, row, strategies.size()));
    }
    return results;
  }
}
