package dev.supervision.backoff.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every test class of every module of the repository is run by {@code mvn verify}: a class that
 * declares a JUnit or jqwik test has a name that Surefire's default includes match ({@code Test*},
 * {@code *Test}, {@code *Tests}, {@code *TestCase}). A name outside them compiles, passes when run
 * by hand with {@code -Dtest=}, and is never run by the build.
 *
 * <p>The rule reads the test sources of all modules (from the repository's root, found above this
 * module's directory), so one test guards them all.
 */
final class EveryTestClassIsRunTest {

  /** An annotation that makes a method a test for the JUnit Platform (Jupiter or jqwik). */
  private static final Pattern TEST_ANNOTATION =
      Pattern.compile(
          "^\\s*@(?:[\\w.]+\\.)?(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|Property|Example)\\b",
          Pattern.MULTILINE);

  /** Surefire's default includes, as simple class names. */
  private static final Pattern SUREFIRE_DEFAULT =
      Pattern.compile("Test.*|.*Test|.*Tests|.*TestCase");

  @Test
  void everyClassThatDeclaresATestHasANameSurefireRuns() {
    List<Path> sources = testSources(repositoryRoot());
    assertTrue(
        sources.size() > 100,
        "expected the test sources of every module, found only " + sources.size());
    List<String> neverRun =
        sources.stream()
            .filter(EveryTestClassIsRunTest::declaresATest)
            .map(p -> p.getFileName().toString().replaceFirst("\\.java$", ""))
            .filter(name -> !SUREFIRE_DEFAULT.matcher(name).matches())
            .sorted()
            .toList();
    assertEquals(
        List.of(),
        neverRun,
        "these classes declare tests that mvn verify never runs; name them after the rule they"
            + " check, ending in Test");
  }

  @Test
  void theRuleSeesATestClassWhoseNameSurefireSkips() {
    String source =
        "final class Checks {\n  @net.jqwik.api.Property\n  boolean holds() { return true; }\n}\n";
    assertTrue(TEST_ANNOTATION.matcher(source).find());
    assertTrue(!SUREFIRE_DEFAULT.matcher("RateChecks").matches());
    assertTrue(SUREFIRE_DEFAULT.matcher("RateChecksTest").matches());
  }

  private static boolean declaresATest(Path source) {
    try {
      return TEST_ANNOTATION.matcher(Files.readString(source)).find();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The directory above this module that holds the parent pom and {@code .ci}. */
  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve(".ci")) && Files.isRegularFile(d.resolve("pom.xml"))) {
        return d;
      }
    }
    throw new IllegalStateException("no repository root (with .ci and pom.xml) above " + dir);
  }

  private static List<Path> testSources(Path root) {
    try (Stream<Path> modules = Files.list(root)) {
      return modules
          .map(m -> m.resolve("src/test/java"))
          .filter(Files::isDirectory)
          .flatMap(EveryTestClassIsRunTest::javaFiles)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Stream<Path> javaFiles(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(p -> p.toString().endsWith(".java")).toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
