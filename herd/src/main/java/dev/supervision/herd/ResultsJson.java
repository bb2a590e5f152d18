package dev.supervision.herd;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes {@code results.json}: the scenario's parameters and every row's results. */
public final class ResultsJson {

  private ResultsJson() {}

  /**
   * The scenario's parameters as they appear in {@code results.json}.
   *
   * @param s the scenario
   * @return the parameters, in a stable order
   */
  public static Map<String, Object> parameters(HerdScenario s) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("mode", s.exact() ? "exact" : "real");
    p.put("cells", s.cells());
    p.put("outageMs", s.outage().toMillis());
    p.put("capacityPerSecond", s.resource().unlimited() ? null : s.resource().capacityPerSecond());
    p.put("cold", s.resource().cold());
    p.put("limiterBurst", s.resource().limited() ? s.resource().limiterBurst() : null);
    p.put("crashFactor", s.resource().unlimited() ? null : s.resource().crashFactor());
    p.put("crashForMs", s.resource().unlimited() ? null : s.resource().crashFor().toMillis());
    p.put("physicalLimitMs", s.resource().unlimited() ? null : s.physicalLimit().toMillis());
    p.put("horizonMs", s.horizonAfterOutage() == null ? null : s.horizonAfterOutage().toMillis());
    p.put("minBackoffMs", s.minBackoff().toMillis());
    p.put("maxBackoffMs", s.maxBackoff().toMillis());
    p.put("scale", s.exact() ? null : s.scale());
    p.put("seed", s.seed());
    p.put("logging", s.logging().name().toLowerCase(Locale.ROOT));
    p.put("nodes", s.cluster().nodes());
    p.put("placement", s.cluster().skew().name().toLowerCase(Locale.ROOT));
    p.put("sharing", s.cluster().sharing().name().toLowerCase(Locale.ROOT));
    p.put("learnerDelayMs", s.cluster().learnerDelay().toMillis());
    p.put("leaveAtMs", s.cluster().leaveAt() == null ? null : s.cluster().leaveAt().toMillis());
    p.put("joinAtMs", s.cluster().joinAt() == null ? null : s.cluster().joinAt().toMillis());
    p.put(
        "learnerLostAtMs",
        s.cluster().learnerLostAt() == null ? null : s.cluster().learnerLostAt().toMillis());
    p.put(
        "handoverMs",
        s.cluster().learnerLostAt() == null ? null : s.cluster().handover().toMillis());
    p.put("strategies", s.strategies());
    p.put("windowMs", CallTrace.WINDOW_MS);
    p.put("availableProcessors", Runtime.getRuntime().availableProcessors());
    p.put("java", System.getProperty("java.version"));
    return p;
  }

  /**
   * Writes {@code results.json}: {@code {"scenario": {...}, "results": [{...}, ...]}}.
   *
   * @param s the scenario
   * @param results the results
   * @param file the file
   * @throws IOException if it cannot be written
   */
  public static void write(HerdScenario s, List<StrategyResult> results, Path file)
      throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("scenario", parameters(s));
    root.put("results", results);
    Files.createDirectories(file.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
  }
}
