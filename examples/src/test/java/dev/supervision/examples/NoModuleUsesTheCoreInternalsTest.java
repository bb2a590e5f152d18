package dev.supervision.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The core's {@code internal} packages are used by the core alone: every other module stands on
 * its API ({@code dev.supervision.backoff}), its decision classes ({@code
 * dev.supervision.backoff.rate}) and its extension point ({@code dev.supervision.backoff.spi}).
 */
final class NoModuleUsesTheCoreInternalsTest {

  private static final String INTERNAL = "dev.supervision.backoff.internal";

  /** The compiled main classes on this module's class path: examples, cluster, micrometer, testkit. */
  @Test
  void noClassOutsideTheCoreDependsOnItsInternals() {
    JavaClasses classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.supervision");
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.supervision.backoff",
            "dev.supervision.backoff.rate..",
            "dev.supervision.backoff.spi..",
            INTERNAL + "..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(INTERNAL + "..")
        .check(classes);
  }

  /**
   * The main sources of every module but the core, including those not on this class path (herd,
   * benchmarks): none names the internal packages.
   */
  @Test
  void noModuleButTheCoreNamesItsInternalsInItsSources() throws IOException {
    Path root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
    List<Path> modules;
    try (Stream<Path> dirs = Files.list(root)) {
      modules =
          dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml")))
              .filter(d -> !d.getFileName().toString().equals("supervision-backoff"))
              .filter(d -> Files.isDirectory(d.resolve("src/main/java")))
              .toList();
    }
    assertTrue(
        modules.size() >= 6,
        "expected the satellite modules beside " + root + ", found " + modules);
    List<String> offenders = new ArrayList<>();
    for (Path module : modules) {
      try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
        files
            .filter(f -> f.toString().endsWith(".java"))
            .filter(f -> read(f).contains(INTERNAL))
            .forEach(f -> offenders.add(root.relativize(f).toString()));
      }
    }
    assertEquals(List.of(), offenders, "main sources outside the core that name " + INTERNAL);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
