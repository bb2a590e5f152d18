package dev.supervision.bench;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.BackoffSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.RestartSettings;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.RestartSource;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * Heap per idle restartable stream: {@code n} materialized streams whose inner source never emits
 * ({@code Source.never()}), bare, in Pekko's {@code RestartSource} and in {@code BackoffSource},
 * each kind in an actor system of its own, measured after full collections.
 *
 * <pre>{@code
 * java -Xmx2g -cp benchmarks/target/benchmarks.jar dev.supervision.bench.MemoryPerStream 10000 3
 * }</pre>
 */
public final class MemoryPerStream {

  private MemoryPerStream() {}

  /**
   * Runs the measurement.
   *
   * @param args the number of streams per kind (default 10,000) and of rounds (default 3)
   * @throws Exception if an actor system fails
   */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    for (int round = 1; round <= rounds; round++) {
      for (String kind : List.of("BARE", "PEKKO", "BACKOFF")) {
        System.out.printf(
            Locale.ROOT,
            "round %d %-8s %8.1f bytes per idle stream%n",
            round,
            kind,
            measure(kind, n));
      }
    }
  }

  private static double measure(String kind, int n) throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "memory-per-stream");
    try {
      Duration min = Duration.ofMillis(100);
      Duration max = Duration.ofSeconds(20);
      BackoffPolicy policy = BackoffPolicy.exponential(min, max);
      RestartSettings settings = RestartSettings.create(min, max, 0.2);
      run(system, kind, policy, settings, 100).forEach(UniqueKillSwitch::shutdown); // warm up
      Thread.sleep(500);
      long before = Heap.usedAfterGc();
      List<UniqueKillSwitch> running = run(system, kind, policy, settings, n);
      Thread.sleep(1000); // every stream materialized and idle
      long after = Heap.usedAfterGc();
      running.forEach(UniqueKillSwitch::shutdown);
      return (after - before) / (double) n;
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static List<UniqueKillSwitch> run(
      ActorSystem<Void> system,
      String kind,
      BackoffPolicy policy,
      RestartSettings settings,
      int n) {
    List<UniqueKillSwitch> switches = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Source<Integer, NotUsed> source =
          switch (kind) {
            case "BARE" -> Source.never();
            case "PEKKO" -> RestartSource.withBackoff(settings, Source::never);
            case "BACKOFF" -> BackoffSource.withBackoff(policy, Source::never);
            default -> throw new IllegalArgumentException("unknown kind " + kind);
          };
      switches.add(
          source.viaMat(KillSwitches.single(), Keep.right()).to(Sink.ignore()).run(system));
    }
    return switches;
  }
}
