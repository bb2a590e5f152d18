package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every code snippet of the README and of docs/ that is marked {@code <!-- name -->} ... {@code <!--
 * name -->} is the compiled code between the two {@code // #name} lines of an example's source (or
 * test), so the documents show code that the build compiles and runs, not copies that drift.
 * Compared after removing the common indentation.
 */
final class DocSnippetsTest {

  static final Path ROOT = Path.of("..");
  private static final Pattern DOC_MARKER = Pattern.compile("<!-- ([a-z][a-z0-9-]*) -->");
  private static final Pattern SOURCE_MARKER =
      Pattern.compile("^\\s*// #([a-z][a-z0-9-]*)\\s*$", Pattern.MULTILINE);

  /** The snippet between the first two occurrences of {@code marker}. */
  static String between(String text, String marker) {
    int start = text.indexOf(marker);
    int end = text.indexOf(marker, start + marker.length());
    assertTrue(start >= 0 && end > start, "two markers " + marker);
    int from = text.indexOf('\n', start) + 1;
    int to = text.lastIndexOf('\n', end) + 1;
    return text.substring(from, Math.max(from, to));
  }

  static String normalize(String snippet) {
    // without trailing blank lines first: stripIndent counts a blank last line as unindented
    return snippet.replace("```java", "").replace("```", "").stripTrailing().stripIndent().strip();
  }

  /** Every marked snippet of the Java sources of the examples module, by name. */
  static Map<String, String> sourceSnippets() {
    Map<String, String> snippets = new TreeMap<>();
    try (Stream<Path> files = Files.walk(Path.of("src"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String text = Files.readString(file);
        Matcher m = SOURCE_MARKER.matcher(text);
        while (m.find()) {
          String name = m.group(1);
          if (!snippets.containsKey(name)) {
            snippets.put(name, normalize(between(text, "// #" + name)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return snippets;
  }

  static List<Path> documents() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  @TestFactory
  Stream<DynamicTest> everyMarkedSnippetIsTheCompiledSource() throws IOException {
    Map<String, String> sources = sourceSnippets();
    List<DynamicTest> tests = new ArrayList<>();
    for (Path doc : documents()) {
      String text = Files.readString(doc);
      Matcher m = DOC_MARKER.matcher(text);
      List<String> seen = new ArrayList<>();
      while (m.find()) {
        String name = m.group(1);
        if (seen.contains(name)) {
          continue;
        }
        seen.add(name);
        tests.add(
            DynamicTest.dynamicTest(
                doc.getFileName() + " " + name,
                () -> {
                  assertTrue(sources.containsKey(name), "no source has the marker // #" + name);
                  assertEquals(
                      sources.get(name), normalize(between(text, "<!-- " + name + " -->")));
                }));
      }
    }
    return tests.stream();
  }

  @Test
  void theDocumentsShowTheMainExamples() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    assertTrue(readme.contains("<!-- quick-start -->"), "README shows the main example");
    assertTrue(readme.contains("<!-- quick-test -->"), "README shows a test");
    assertTrue(
        Files.readString(ROOT.resolve("docs/cluster.md")).contains("<!-- sharded-entity -->"));
    assertTrue(Files.readString(ROOT.resolve("docs/cluster.md")).contains("<!-- singleton -->"));
    assertTrue(
        Files.readString(ROOT.resolve("docs/persistence.md"))
            .contains("<!-- persistent-worker -->"));
    assertFalse(sourceSnippets().isEmpty());
  }
}
