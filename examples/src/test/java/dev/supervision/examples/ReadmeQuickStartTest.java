package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's quick start is the compiled code of the main example and its test, not copies that drift. */
final class ReadmeQuickStartTest {

  static String between(String text, String marker) {
    int start = text.indexOf(marker);
    int end = text.indexOf(marker, start + marker.length());
    assertTrue(start >= 0 && end > start, "two markers " + marker);
    return text.substring(start + marker.length(), end);
  }

  @Test
  void theReadmeQuickStartIsTheExampleSource() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    String source = Files.readString(
        Path.of("src", "main", "java", "dev", "supervision", "examples", "FlakyResourceExample.java"));
    String fromReadme = between(readme, "<!-- quick-start -->").replace("```java", "").replace("```", "").strip();
    String fromSource = between(source, "// #quick-start").strip();
    assertEquals(fromSource, fromReadme);
  }

  @Test
  void theReadmeQuickTestIsTheExampleTestSource() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    String source = Files.readString(
        Path.of("src", "test", "java", "dev", "supervision", "examples", "ManualTimeExampleTest.java"));
    String fromReadme = between(readme, "<!-- quick-test -->").replace("```java", "").replace("```", "").strip();
    String fromSource = between(source, "// #quick-test").strip();
    assertEquals(fromSource, fromReadme);
  }
}
