package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Runs PersistentWorkerExample (DocSnippetsTest checks that docs/persistence.md shows its code). */
final class PersistentWorkerExampleTest {

  @Test
  void aJournalFailureRestartsTheWorkerWhichRecoversItsCount() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PersistentWorkerExample.Result result =
        PersistentWorkerExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String output = bytes.toString(StandardCharsets.UTF_8);

    assertEquals(2, result.before(), output);
    assertEquals(1, result.restarts(), output);
    assertEquals(2, result.recovered(), output); // job-3 failed to persist, so it is not counted
    assertEquals(3, result.after(), output);
    assertTrue(output.contains("JournalFailureException"), output);
  }
}
