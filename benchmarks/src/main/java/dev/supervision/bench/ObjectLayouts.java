package dev.supervision.bench;

import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.vm.VM;

/**
 * The instance size of the objects a supervised actor holds, as JOL computes them for this JVM
 * (compressed references unless the heap is above 32 GB): what an idle actor's supervisor costs
 * beside {@link MemoryPerActor}'s measured difference.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.supervision.bench.ObjectLayouts
 * </pre>
 */
public final class ObjectLayouts {

  private ObjectLayouts() {}

  /** Held by every supervised actor, from the start; then while it recovers from a failure. */
  private static final String[] CLASSES = {
    "dev.supervision.backoff.internal.BackoffBehavior",
    "dev.supervision.backoff.internal.BackoffBehavior$Wrap",
    "dev.supervision.backoff.internal.Recovery",
  };

  /**
   * Prints each class's layout and instance size.
   *
   * @param args ignored
   * @throws ClassNotFoundException if a class is gone
   */
  public static void main(String[] args) throws ClassNotFoundException {
    System.out.println(VM.current().details());
    for (String name : CLASSES) {
      ClassLayout layout = ClassLayout.parseClass(Class.forName(name));
      System.out.println(layout.toPrintable());
      System.out.printf("%s: %d bytes%n%n", name, layout.instanceSize());
    }
  }
}
