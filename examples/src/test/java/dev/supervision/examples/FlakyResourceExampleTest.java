package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Runs the main example as a user would, in real time, with a short outage. */
final class FlakyResourceExampleTest {

  @Test
  void everyWorkerFailsDuringTheOutageAndAnswersAgainAfterIt() throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    FlakyResourceExample.Result result =
        FlakyResourceExample.run(
            5, Duration.ofMillis(300), new PrintStream(buffer, true, StandardCharsets.UTF_8));
    String printed = buffer.toString(StandardCharsets.UTF_8);
    assertTrue(result.allAnswered(), printed);
    assertTrue(result.restarts() >= 5, "every worker restarted at least once: " + printed);
    assertTrue(printed.contains("all answering again: true"), printed);
  }
}
