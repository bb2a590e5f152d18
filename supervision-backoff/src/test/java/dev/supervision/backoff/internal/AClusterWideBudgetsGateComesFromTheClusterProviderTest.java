package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.spi.ClusterBudgetProvider;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testsupport.Gates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.Behavior;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate of a cluster-wide budget is the one the {@link ClusterBudgetProvider} found on the
 * classpath makes, from the core's own gate of the budget. (The cluster module registers the real
 * provider; here a provider registered for this test alone, in a class loader of its own, makes
 * the core's gate for three nodes.)
 */
final class AClusterWideBudgetsGateComesFromTheClusterProviderTest {

  private static final ActorTestKit kit = ActorTestKit.create();

  /** What the provider was asked: the budget's name and whether it is adaptive. */
  static final List<String> asked = new CopyOnWriteArrayList<>();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  /** A provider whose gate is the core's gate of the budget, shared by three nodes. */
  public static final class ThreeNodes implements ClusterBudgetProvider {

    /** The provider, as {@link java.util.ServiceLoader} makes it. */
    public ThreeNodes() {}

    @Override
    public Behavior<GateProtocol.Command> gate(
        String budgetName,
        Optional<AdaptiveRateController.Parameters> adaptive,
        IntFunction<Behavior<GateProtocol.Command>> localGate) {
      asked.add(budgetName + (adaptive.isPresent() ? " adaptive" : " fixed"));
      return localGate.apply(3);
    }
  }

  @Test
  void aClusterWideBudget_getsTheProvidersGate_madeFromTheCoreGateForItsMembers(
      @TempDir Path services) throws IOException {
    Path file = services.resolve("META-INF/services/" + ClusterBudgetProvider.class.getName());
    Files.createDirectories(file.getParent());
    Files.writeString(file, ThreeNodes.class.getName() + "\n");
    RestartBudget budget =
        RestartBudget.of("cluster-wide-from-provider", 6, Duration.ofSeconds(1)).clusterWide();
    GateRegistry.Handle handle =
        withServices(services, () -> GateRegistry.get(kit.system()).handle(budget));
    assertEquals(List.of("cluster-wide-from-provider fixed"), asked);
    GateProtocol.Status status = Gates.status(kit, handle.gate());
    assertEquals("cluster-wide-from-provider", status.name());
    assertEquals(2.0, status.rate(), 1e-9, "a third of 6 per second");
  }

  /** Runs {@code call} with a context class loader that also sees {@code root}'s resources. */
  private static <R> R withServices(Path root, Supplier<R> call) {
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {url(root)}, before)) {
      thread.setContextClassLoader(loader);
      return call.get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      thread.setContextClassLoader(before);
    }
  }

  private static URL url(Path root) {
    try {
      return root.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new UncheckedIOException(e);
    }
  }
}
