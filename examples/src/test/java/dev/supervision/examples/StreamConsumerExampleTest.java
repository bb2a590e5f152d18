package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.stream.BackoffStreams;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs the stream example as a user would, and tests its source under ManualTime. */
final class StreamConsumerExampleTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

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

  @Test
  void aSourceThatCannotConnectRestartsAfterItsBackoff() {
    FlakyDatabase db = new FlakyDatabase();
    db.setUp(false);
    // #stream-test
    BackoffProbe backoff = kit.createProbe();
    SinkQueueWithCancel<String> orders =
        StreamConsumerExample.orders(db, backoff.listener()).runWith(Sink.queue(), kit.system());

    BackoffEvent.RestartScheduled scheduled = backoff.expectRestartScheduled(); // connect failed
    assertEquals(Optional.of("orders-feed"), BackoffStreams.streamName(scheduled));
    db.setUp(true);
    backoff.advanceToRestart(kit.time()); // the clock is exactly at the restart
    backoff.expectRestarted(); // connected again
    // #stream-test
    orders.cancel();
  }
}
