package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/cluster.md shows the compiled code of the cluster examples, not copies that drift. */
final class ClusterDocsTest {

  static final Path DOC = Path.of("..", "docs", "cluster.md");
  static final Path SOURCES = Path.of("src", "main", "java", "dev", "supervision", "examples");

  static String between(String text, String marker) {
    int start = text.indexOf(marker);
    int end = text.indexOf(marker, start + marker.length());
    assertTrue(start >= 0 && end > start, "two markers " + marker);
    return text.substring(start + marker.length(), end);
  }

  static void assertDocShows(String marker, String sourceFile) throws IOException {
    String doc = Files.readString(DOC);
    String source = Files.readString(SOURCES.resolve(sourceFile));
    String fromDoc = between(doc, "<!-- " + marker + " -->").replace("```java", "").replace("```", "").strip();
    String fromSource = between(source, "// #" + marker).strip();
    assertEquals(fromSource, fromDoc);
  }

  @Test
  void theShardedEntitySnippetIsTheExampleSource() throws IOException {
    assertDocShows("sharded-entity", "ShardedWorkerExample.java");
  }

  @Test
  void theSingletonSnippetIsTheExampleSource() throws IOException {
    assertDocShows("singleton", "SingletonWorkerExample.java");
  }
}
