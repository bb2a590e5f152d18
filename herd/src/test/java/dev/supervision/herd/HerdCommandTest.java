package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class HerdCommandTest {

  private record Run(int status, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        HerdCommand.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void help_listsEveryOption_andExitsZero() {
    Run r = run("--help");
    assertEquals(0, r.status);
    for (String option :
        List.of(
            "--cells",
            "--outage",
            "--min",
            "--max",
            "--scale",
            "--seed",
            "--exact",
            "--strategies",
            "--out",
            "--capacity",
            "--crash-factor",
            "--crash-for",
            "--cold",
            "--limiter",
            "--horizon",
            "--version")) {
      assertTrue(r.out.contains(option), option + " missing from\n" + r.out);
    }
  }

  @Test
  void badOptions_getOneLineError_andExitTwo() {
    List<String[]> bad =
        List.of(
            new String[] {"--cells", "many"},
            new String[] {"--cells", "0"},
            new String[] {"--outage", "2"},
            new String[] {"--min", "-5ms"},
            new String[] {"--min", "2s", "--max", "1s"},
            new String[] {"--scale", "0"},
            new String[] {"--strategies", "full,bogus"},
            new String[] {"--exact", "--strategies", "pekko-restart"},
            new String[] {"--no-such-option"},
            new String[] {"--capacity", "0"},
            new String[] {"--capacity", "lots"},
            new String[] {"--crash-factor", "0.5"},
            new String[] {"--crash-for", "0ms"},
            new String[] {"--horizon", "0s"},
            new String[] {"--limiter", "1000"},
            new String[] {"--limiter", "0:5"},
            new String[] {"--limiter", "1000:0", "--cold"});
    for (String[] args : bad) {
      Run r = run(args);
      assertEquals(2, r.status, String.join(" ", args));
      assertEquals(1, r.err.strip().lines().count(), String.join(" ", args) + " gave:\n" + r.err);
      assertTrue(r.err.startsWith("herd: "), r.err);
      assertEquals("", r.out, String.join(" ", args));
    }
  }

  @Test
  void badValues_nameTheOptionAsWritten() {
    assertEquals(
        "herd: --cells must be >= 1 but was 0 (see --help)", run("--cells", "0").err.strip());
    assertEquals(
        "herd: --min must be > 0 but was 0ms (see --help)", run("--min", "0ms").err.strip());
    assertEquals(
        "herd: --crash-factor must be 0 (off) or in [1, 1000] but was 0.5 (see --help)",
        run("--crash-factor", "0.5").err.strip());
    assertTrue(run("--capacity", "lots").err.startsWith("herd: --capacity must be "));
    assertTrue(run("--strategies", "full,bogus").err.startsWith("herd: --strategies must be "));
    assertEquals(
        "herd: --limiter must be RATE:BURST, e.g. 1000:0 or 200:5 but was 1000 (see --help)",
        run("--limiter", "1000").err.strip());
  }

  @Test
  void exactRunBehindALimiter_saysSo_andWritesItsRateAndBurst(@TempDir Path dir) throws Exception {
    Run r =
        run(
            "--exact",
            "--cells",
            "300",
            "--limiter",
            "200:5",
            "--strategies",
            "adaptive",
            "--out",
            dir.toString());
    assertEquals(0, r.status, r.err);
    assertTrue(
        r.out.contains("rate limiter of 200 requests/s, burst 5 (nginx limit_req nodelay)"), r.out);
    JsonNode scenario = scenarioIn(dir);
    assertEquals(200, scenario.get("capacityPerSecond").asInt());
    assertEquals(5, scenario.get("limiterBurst").asInt());
    assertEquals(0.0, scenario.get("crashFactor").asDouble());
    assertEquals(1500, scenario.get("physicalLimitMs").asInt()); // 300 requests at 200/s
  }

  /** Runs the adaptive row in exact mode on 3 nodes with one more option, into {@code dir}. */
  private static Run threeNodes(Path dir, String option, String value) {
    Run r =
        run(
            "--exact",
            "--cells",
            "300",
            "--nodes",
            "3",
            option,
            value,
            "--strategies",
            "adaptive",
            "--out",
            dir.toString());
    assertEquals(0, r.status, r.err);
    return r;
  }

  /** The {@code scenario} of the results.json in {@code dir}. */
  private static JsonNode scenarioIn(Path dir) throws java.io.IOException {
    return new ObjectMapper().readTree(dir.resolve("results.json").toFile()).get("scenario");
  }

  @Test
  void learnerDelay_reachesTheClusterModel_andResultsJson(@TempDir Path dir) throws Exception {
    Run r = threeNodes(dir, "--learner-delay", "10ms");
    assertTrue(r.out.contains("learner 10 ms away"), r.out);
    JsonNode scenario = scenarioIn(dir);
    assertEquals(10, scenario.get("learnerDelayMs").asInt());
    assertTrue(
        run("--nodes", "3", "--learner-delay", "-1ms")
            .err
            .startsWith("herd: Invalid value for option '--learner-delay': '-1ms'"));
  }

  @Test
  void learnerLostAt_reachesResultsJson_withTheDefaultHandover(@TempDir Path dir) throws Exception {
    Run r = threeNodes(dir, "--learner-lost-at", "1s");
    assertTrue(r.out.contains("the learner's node crashes at 1000 ms (handover 25.0 s)"), r.out);
    JsonNode scenario = scenarioIn(dir);
    assertEquals(1000, scenario.get("learnerLostAtMs").asInt());
    assertEquals(25_000, scenario.get("handoverMs").asInt());
    assertEquals(
        "herd: --nodes must be >= 2 with --learner-lost-at but was 1 (see --help)",
        run("--learner-lost-at", "1s").err.strip());
  }

  @Test
  void version_printsTheProjectVersion() {
    Run r = run("--version");
    assertEquals(0, r.status);
    assertTrue(r.out.matches("herd \\(supervision-backoff\\) \\d+\\.\\d+\\.\\d+\\S*\\s*"), r.out);
  }

  @Test
  void exactRun_writesResultsJsonWithEveryKey_andAChart(@TempDir Path dir) throws Exception {
    Run r = run("--exact", "--cells", "200", "--strategies", "none,full", "--out", dir.toString());
    assertEquals(0, r.status, r.err);
    assertTrue(r.out.contains("Recovery peak, full jitter against none: "), r.out);
    JsonNode json = new ObjectMapper().readTree(dir.resolve("results.json").toFile());
    assertEquals(200, json.get("scenario").get("cells").asInt());
    assertEquals("exact", json.get("scenario").get("mode").asText());
    assertEquals(2000, json.get("scenario").get("outageMs").asInt());
    assertEquals(1000, json.get("scenario").get("capacityPerSecond").asInt());
    assertEquals(3.0, json.get("scenario").get("crashFactor").asDouble());
    assertTrue(json.get("scenario").has("cold"));
    assertEquals(200, json.get("scenario").get("physicalLimitMs").asInt()); // 200 cells at 1,000/s
    assertEquals(2, json.get("results").size());
    for (JsonNode result : json.get("results")) {
      for (String key :
          List.of(
              "strategy",
              "cells",
              "calls",
              "callsDuringOutage",
              "recoveryPeakPerSecond",
              "busiestSecondAfterOutage",
              "failedCallsAfterOutage",
              "resourceCrashes",
              "recoveredShare",
              "p50RecoveredMs",
              "p99RecoveredMs",
              "allRecoveredMs",
              "crashTimesMs",
              "callsPer100ms")) {
        assertTrue(result.hasNonNull(key), key + " missing in " + result);
      }
    }
    assertEquals("full", json.get("results").get(1).get("strategy").asText());
    Path png = dir.resolve("herd.png");
    assertTrue(Files.size(png) > 10_000);
    assertTrue(ImageIO.read(png.toFile()).getWidth() >= 700);
  }
}
