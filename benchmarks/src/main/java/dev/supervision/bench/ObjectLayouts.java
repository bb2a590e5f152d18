package dev.supervision.bench;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.BehaviorTestKit;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.vm.VM;

/**
 * The instance size of the objects a supervised actor holds, as JOL computes them for this JVM
 * (compressed references unless the heap is above 32 GB): what an idle actor's supervisor costs
 * beside {@link MemoryPerActor}'s measured difference. The classes are found from a running
 * supervisor: the behavior {@code wrap} returns, the supervisor it starts, and the type of the
 * supervisor's {@code recovery} field (held from a failure to the reset).
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.supervision.bench.ObjectLayouts
 * </pre>
 */
public final class ObjectLayouts {

  private ObjectLayouts() {}

  /**
   * Prints each class's layout and instance size.
   *
   * @param args ignored
   * @throws NoSuchFieldException if the supervisor has no {@code recovery} field any more
   */
  public static void main(String[] args) throws NoSuchFieldException {
    Behavior<String> wrapped =
        BackoffSupervisor.wrap(
            Behaviors.<String>receiveMessage(m -> Behaviors.same()),
            BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10)));
    Class<?> supervisor = BehaviorTestKit.create(wrapped).currentBehavior().getClass();
    Class<?> recovery = supervisor.getSuperclass().getDeclaredField("recovery").getType();
    System.out.println(VM.current().details());
    for (Class<?> type : new Class<?>[] {supervisor, wrapped.getClass(), recovery}) {
      ClassLayout layout = ClassLayout.parseClass(type);
      System.out.println(layout.toPrintable());
      System.out.printf("%s: %d bytes%n%n", type.getName(), layout.instanceSize());
    }
  }
}
