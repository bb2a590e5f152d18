package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's output is the header, a progress line per row, the table, the conclusions and where the
 * files went; whatever a row's ActorSystem prints (Pekko's stack overflows included) goes to that
 * row's log file, never to the console.
 */
final class DemoOutputTest {

  @Test
  void realDemo_printsHeaderTableConclusionsAndFiles_andSendsEverythingTheRowsPrintToTheirLogs(
      @TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    PrintStream systemOut = System.out;
    PrintStream systemErr = System.err;
    PrintStream leak = new PrintStream(console, true, StandardCharsets.UTF_8);
    int status;
    System.setOut(leak);
    System.setErr(leak);
    try {
      status =
          HerdCommand.run(
              new String[] {
                "--cells",
                "200",
                "--max",
                "2s",
                "--strategies",
                "pekko-restart,full",
                "--out",
                dir.toString()
              },
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
    } finally {
      System.setOut(systemOut);
      System.setErr(systemErr);
    }
    String stdout = out.toString(StandardCharsets.UTF_8);
    String stderr = err.toString(StandardCharsets.UTF_8);
    assertEquals(0, status, stderr);
    assertEquals("", console.toString(StandardCharsets.UTF_8), "printed past the row logs");

    List<String> lines = stdout.lines().toList();
    assertTrue(lines.size() <= 14, "too long:\n" + stdout);
    assertTrue(lines.get(0).startsWith("herd: 200 actors; "), lines.get(0));
    int table =
        lines.indexOf(
            lines.stream().filter(l -> l.startsWith("strategy ")).findFirst().orElseThrow());
    assertTrue(lines.get(table + 1).startsWith("pekko-restart "), stdout);
    assertTrue(
        lines.get(table + 1).contains("StackOverflowError"),
        "one short line says what happened:\n" + stdout);
    assertTrue(lines.get(table + 2).startsWith("full "), stdout);
    assertTrue(stdout.contains(ResultsTable.STACK_OVERFLOW_DOC), stdout);
    assertTrue(lines.get(lines.size() - 1).startsWith("wrote "), stdout);
    for (String line : lines) {
      assertTrue(line.length() <= 200, "line too long: " + line);
      assertTrue(!line.contains("\tat "), "a stack trace reached the output: " + line);
    }
    // progress: one line per row when not on a terminal
    List<String> progress = stderr.lines().toList();
    assertEquals(2, progress.size(), stderr);
    assertTrue(progress.get(0).startsWith("[1/2] pekko-restart: "), stderr);
    assertTrue(progress.get(1).startsWith("[2/2] full: all recovered"), stderr);

    Path log = dir.resolve("logs").resolve("pekko-restart.log");
    assertTrue(Files.readString(log).contains("StackOverflowError"));
    assertTrue(
        Files.notExists(dir.resolve("logs").resolve("full.log")),
        "a row that printed nothing keeps no log");
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.toList()) {
        if (Files.isDirectory(p)) {
          try (Stream<Path> entries = Files.list(p)) {
            assertTrue(entries.findAny().isPresent(), "empty folder left behind: " + p);
          }
        }
      }
    }
  }

  /** A row whose preparation fails, as creating its ActorSystem might. */
  private static final class Broken implements HerdStrategy {
    @Override
    public String id() {
      return "broken";
    }

    @Override
    public String description() {
      return "fails before its ActorSystem exists";
    }

    @Override
    public RealRun real(HerdScenario scenario) {
      System.err.println("about to fail");
      throw new IllegalStateException("no ActorSystem today");
    }

    @Override
    public Optional<ExactRun> exact(HerdScenario scenario) {
      return Optional.empty();
    }
  }

  @Test
  void aRowThatFailsBeforeItsActorSystemRuns_stillRestoresStandardOutputAndError(@TempDir Path dir)
      throws Exception {
    PrintStream systemOut = System.out;
    PrintStream systemErr = System.err;
    HerdScenario s =
        new HerdScenario(
            10,
            Duration.ofSeconds(1),
            Duration.ofMillis(100),
            Duration.ofSeconds(1),
            1.0,
            1,
            false,
            List.of("full"),
            dir);
    assertThrows(
        IllegalStateException.class, () -> RealHerd.run(new Broken(), s, Progress.NONE, 1, 1));
    assertSame(systemOut, System.out);
    assertSame(systemErr, System.err);
    assertTrue(
        Files.readString(dir.resolve("logs").resolve("broken.log")).contains("about to fail"));
  }
}
