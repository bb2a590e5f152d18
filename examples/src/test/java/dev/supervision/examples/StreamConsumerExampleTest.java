package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Runs the stream example as a user would, in real time, with a short outage. */
final class StreamConsumerExampleTest {

  @Test
  void theSourceBacksOffDuringTheOutageAndOrdersFlowAgainAfterIt() throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    StreamConsumerExample.Result result =
        StreamConsumerExample.run(
            Duration.ofMillis(300), new PrintStream(buffer, true, StandardCharsets.UTF_8));
    String printed = buffer.toString(StandardCharsets.UTF_8);
    assertTrue(result.flowsAgain(), printed);
    assertTrue(result.restarts() >= 1, "the source restarted: " + printed);
    assertTrue(printed.contains("orders-feed restarts in"), printed);
    assertTrue(printed.contains("orders flow again: true"), printed);
  }
}
