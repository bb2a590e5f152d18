package dev.supervision.backoff.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The core's layers, as docs/architecture.md draws them, bottom to top: {@code internal.util}
 * (imports nothing of the library), {@code rate} (the pure decision classes: imports only {@code
 * internal.util}, for the argument checks), {@code spi} (the extension point), the values ({@code dev.supervision.backoff} minus the
 * entry points, with {@code internal.policy}), the engine ({@code internal}), the entry points
 * ({@code BackoffSupervisor}, {@code RestartBudgets}).
 */
final class CoreLayersTest {

  private static final String ROOT = "dev.supervision.backoff";
  private static final Set<String> ENTRY_POINTS =
      Set.of(ROOT + ".BackoffSupervisor", ROOT + ".RestartBudgets");

  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages(ROOT);

  /** The top-level class a (nested or synthetic) class belongs to. */
  private static String topLevel(JavaClass c) {
    String name = c.getName();
    int dollar = name.indexOf('$');
    return dollar < 0 ? name : name.substring(0, dollar);
  }

  private static final DescribedPredicate<JavaClass> ENTRY =
      DescribedPredicate.describe("entry points", c -> ENTRY_POINTS.contains(topLevel(c)));
  private static final DescribedPredicate<JavaClass> VALUES =
      DescribedPredicate.describe(
          "values",
          c ->
              (c.getPackageName().equals(ROOT) && !ENTRY_POINTS.contains(topLevel(c)))
                  || c.getPackageName().equals(ROOT + ".internal.policy"));
  private static final DescribedPredicate<JavaClass> ENGINE =
      DescribedPredicate.describe("engine", c -> c.getPackageName().equals(ROOT + ".internal"));
  private static final DescribedPredicate<JavaClass> RATE =
      DescribedPredicate.describe("rate", c -> c.getPackageName().equals(ROOT + ".rate"));
  private static final DescribedPredicate<JavaClass> SPI =
      DescribedPredicate.describe("spi", c -> c.getPackageName().equals(ROOT + ".spi"));
  private static final DescribedPredicate<JavaClass> UTIL =
      DescribedPredicate.describe("util", c -> c.getPackageName().equals(ROOT + ".internal.util"));

  /** The layer of a core class, by the predicates above. */
  private static String layerOf(JavaClass c) {
    if (ENTRY.test(c)) {
      return "entry points";
    }
    if (VALUES.test(c)) {
      return "values";
    }
    return c.getPackageName();
  }

  @Test
  void everyCoreClassBelongsToALayer() {
    List<String> homeless = new ArrayList<>();
    for (JavaClass c : CORE) {
      if (!(ENTRY.test(c)
          || VALUES.test(c)
          || ENGINE.test(c)
          || SPI.test(c)
          || RATE.test(c)
          || UTIL.test(c))) {
        homeless.add(c.getName());
      }
    }
    assertEquals(
        List.of(), homeless, "classes in a package that docs/architecture.md does not place");
  }

  @Test
  void layersImportOnlyDownward() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Entry")
        .definedBy(ENTRY)
        .layer("Engine")
        .definedBy(ENGINE)
        .layer("Values")
        .definedBy(VALUES)
        .layer("Spi")
        .definedBy(SPI)
        .layer("Rate")
        .definedBy(RATE)
        .layer("Util")
        .definedBy(UTIL)
        .whereLayer("Entry")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Engine")
        .mayOnlyBeAccessedByLayers("Entry")
        .whereLayer("Values")
        .mayOnlyBeAccessedByLayers("Engine", "Entry")
        .whereLayer("Spi")
        .mayOnlyBeAccessedByLayers("Values", "Engine", "Entry")
        .whereLayer("Rate")
        .mayOnlyBeAccessedByLayers("Spi", "Values", "Engine", "Entry")
        .whereLayer("Util")
        .mayOnlyBeAccessedByLayers("Rate", "Spi", "Values", "Engine", "Entry")
        .check(CORE);
  }

  @Test
  void theEngineIsUsedByTheEntryPointsAlone() {
    noClasses()
        .that(VALUES.or(SPI).or(RATE).or(UTIL))
        .should()
        .dependOnClassesThat(ENGINE.or(ENTRY))
        .because(
            "the engine and the entry points stand on the values and the spi, never below them")
        .check(CORE);
  }

  /**
   * No cycle between layers. The values layer is two packages ({@code dev.supervision.backoff} and
   * {@code internal.policy}) that import each other; they count as one slice here, and {@link
   * #noImportCycleRunsThroughTwoPackages} checks that no class cycle joins them.
   */
  @Test
  void noCycleBetweenLayers() {
    slices()
        .assignedFrom(
            new SliceAssignment() {
              @Override
              public SliceIdentifier getIdentifierOf(JavaClass c) {
                return c.getPackageName().startsWith(ROOT)
                    ? SliceIdentifier.of(layerOf(c))
                    : SliceIdentifier.ignore();
              }

              @Override
              public String getDescription() {
                return "the core's layers";
              }
            })
        .should()
        .beFreeOfCycles()
        .check(CORE);
  }

  /**
   * No import cycle through classes of two packages: every strongly connected set of top-level
   * classes (classes that reach each other through their dependencies) lies in one package.
   */
  @Test
  void noImportCycleRunsThroughTwoPackages() {
    List<Set<String>> crossing = new ArrayList<>();
    for (Set<String> component : stronglyConnected(imports())) {
      Set<String> packages = new TreeSet<>();
      component.forEach(name -> packages.add(packageOf(name)));
      if (packages.size() > 1) {
        crossing.add(component);
      }
    }
    assertEquals(List.of(), crossing, "import cycles that run through more than one package");
  }

  /**
   * The values layer is two packages because Java has no "visible to this package and one other":
   * {@code internal.policy} holds the schedule and the configuration reader, which the API values
   * use. Its only import of the API package, as docs/architecture.md says: the schedule calls the
   * user's {@code Jitter}. (The reader builds no value: the tables of settings in the API package
   * drive it.)
   */
  @Test
  void internalPolicyImportsOfTheApiPackageAreTheDocumentedOnes() {
    Set<String> arrows = new TreeSet<>();
    imports()
        .forEach(
            (from, targets) -> {
              if (packageOf(from).equals(ROOT + ".internal.policy")) {
                targets.stream()
                    .filter(to -> packageOf(to).equals(ROOT))
                    .forEach(to -> arrows.add(simpleName(from) + " -> " + simpleName(to)));
              }
            });
    assertEquals(
        Set.of("DelaySchedule -> Jitter"),
        arrows,
        "internal.policy's imports of the API package (docs/architecture.md lists them)");
  }

  /**
   * The core read at the grain of docs/architecture.md's picture: each package below the root is
   * one node, and the root package (the entry points and the values) one node per top-level file
   * (its nested, local and anonymous classes belong to the file). It has no circle: no two files of
   * the API package, and no two packages, import each other, directly or through others; a value's
   * companions (a policy's table of settings, the built-in jitters, a budget's kinds) are nested in
   * its file. No arrow runs from a lower layer to a higher one.
   */
  @Test
  void packagesAndApiFilesFormNoCircleAndNoArrowUp() {
    Map<String, Set<String>> nodes = new TreeMap<>();
    imports()
        .forEach(
            (from, targets) ->
                targets.forEach(
                    to -> {
                      if (!node(from).equals(node(to))) {
                        nodes.computeIfAbsent(node(from), k -> new TreeSet<>()).add(node(to));
                      }
                    }));
    Set<Set<String>> circles = new HashSet<>();
    for (Set<String> component : stronglyConnected(nodes)) {
      if (component.size() > 1) {
        Set<String> names = new TreeSet<>();
        component.forEach(name -> names.add(simpleName(name)));
        circles.add(names);
      }
    }
    assertEquals(Set.of(), circles, "circles between the core's packages and API files");
    Set<String> upward = new TreeSet<>();
    nodes.forEach(
        (from, targets) ->
            targets.forEach(
                to -> {
                  if (rank(to) > rank(from)) {
                    upward.add(from + " -> " + to);
                  }
                }));
    assertEquals(Set.of(), upward, "arrows from a lower layer up to a higher one");
  }

  /**
   * The engine's classes form no circle: the supervisor calls its reports, its re-wrap rules, its
   * recovery and its gate registry, and none of them calls back into it (they get what they need as
   * arguments or through a small interface, {@code ReWrap.Layer}); the budget gate picks its
   * limiter's kind itself, so the limiter and its two kinds form no circle either.
   */
  @Test
  void theEnginesClassesFormNoCircle() {
    List<Set<String>> circles = new ArrayList<>();
    for (Set<String> component : stronglyConnected(imports())) {
      Set<String> names = new TreeSet<>();
      component.forEach(name -> names.add(simpleName(name)));
      if (component.size() > 1
          && packageOf(component.iterator().next()).equals(ROOT + ".internal")) {
        circles.add(names);
      }
    }
    assertEquals(List.of(), circles, "class circles in the engine");
  }

  /** A node of the package picture: a root package file by its class, any other by its package. */
  private static String node(String className) {
    return packageOf(className).equals(ROOT) ? className : packageOf(className);
  }

  /** The layers of the packages below the root (the values are the root package's other files). */
  private static final Map<String, Integer> PACKAGE_LAYERS =
      Map.of(
          ROOT + ".internal", 4,
          ROOT + ".internal.policy", 3,
          ROOT + ".spi", 2,
          ROOT + ".rate", 1,
          ROOT + ".internal.util", 0);

  /** The layer of a node of the package picture, 5 (entry points) to 0 (util). */
  private static int rank(String node) {
    if (ENTRY_POINTS.contains(node)) {
      return 5;
    }
    Integer layer = PACKAGE_LAYERS.get(node);
    if (layer != null) {
      return layer;
    }
    if (packageOf(node).equals(ROOT)) {
      return 3; // a value's file
    }
    throw new IllegalStateException("a node that docs/architecture.md does not place: " + node);
  }

  /** Every core top-level class and the core top-level classes it imports. */
  private static Map<String, Set<String>> imports() {
    Map<String, Set<String>> edges = new TreeMap<>();
    for (JavaClass c : CORE) {
      Set<String> out = edges.computeIfAbsent(topLevel(c), k -> new TreeSet<>());
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass target = d.getTargetClass().getBaseComponentType(); // X for X[]
        if (target.getPackageName().startsWith(ROOT) && !topLevel(target).equals(topLevel(c))) {
          out.add(topLevel(target));
        }
      }
    }
    return edges;
  }

  private static String packageOf(String className) {
    return className.substring(0, className.lastIndexOf('.'));
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  /** Tarjan's algorithm, iterative: the strongly connected components of a graph. */
  private static List<Set<String>> stronglyConnected(Map<String, Set<String>> edges) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> components = new ArrayList<>();
    int[] counter = {0};
    for (String start : edges.keySet()) {
      if (index.containsKey(start)) {
        continue;
      }
      Deque<Object[]> work = new ArrayDeque<>(); // {node, iterator over its successors}
      visit(start, index, low, stack, onStack, counter);
      work.push(new Object[] {start, edges.getOrDefault(start, Set.of()).iterator()});
      while (!work.isEmpty()) {
        Object[] frame = work.peek();
        String node = (String) frame[0];
        @SuppressWarnings("unchecked")
        Iterator<String> next = (Iterator<String>) frame[1];
        if (next.hasNext()) {
          String w = next.next();
          if (!index.containsKey(w)) {
            visit(w, index, low, stack, onStack, counter);
            work.push(new Object[] {w, edges.getOrDefault(w, Set.of()).iterator()});
          } else if (onStack.contains(w)) {
            low.put(node, Math.min(low.get(node), index.get(w)));
          }
          continue;
        }
        work.pop();
        if (!work.isEmpty()) {
          String parent = (String) work.peek()[0];
          low.put(parent, Math.min(low.get(parent), low.get(node)));
        }
        if (low.get(node).equals(index.get(node))) {
          Set<String> component = new TreeSet<>();
          String w;
          do {
            w = stack.pop();
            onStack.remove(w);
            component.add(w);
          } while (!w.equals(node));
          components.add(component);
        }
      }
    }
    return components;
  }

  private static void visit(
      String node,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      int[] counter) {
    index.put(node, counter[0]);
    low.put(node, counter[0]);
    counter[0]++;
    stack.push(node);
    onStack.add(node);
  }
}
