package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The ramp trace reads the same run as the herd's exact mode and accounts for every actor. */
final class RampTraceTest {

  private static HerdScenario scenario() {
    return HerdCommand.exactAdaptive(
        "--cells", "2000", "--capacity", "400", "--nodes", "3", "--skew", "half");
  }

  @Test
  void traceMatchesTheExactRowAndEndsWithEveryActorBack() {
    StrategyResult row = Herd.run(scenario(), Progress.NONE).get(0);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new RampTrace(2_000, 3).run(scenario(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
    assertTrue(
        lines[0].startsWith(
            String.format(Locale.ROOT, "every actor back %.0f ms", row.allRecoveredMs())),
        lines[0]);
    // the actors' columns: waiting, sleeping, (late), back
    String[] last =
        lines[lines.length - 1].split("\\|")[2].replaceAll("[()]", " ").trim().split(" +");
    assertEquals(List.of("0", "0", "0", "2000"), List.of(last), lines[lines.length - 1]);
    long grants = 0;
    for (int i = 2; i < lines.length; i++) {
      grants += Long.parseLong(lines[i].trim().split(" +")[1]);
    }
    assertTrue(grants >= 2_000, "every actor was granted a restart at least once: " + grants);
  }
}
