package dev.supervision.bench;

import dev.supervision.bench.Counter.Flush;
import dev.supervision.bench.Counter.Kind;
import dev.supervision.bench.Counter.Msg;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Memory per idle actor: for each kind (bare, Pekko-supervised, wrapped), spawns N counters under
 * one parent, has each answer a {@code Flush} (so each has started and handled a message, and is
 * idle again), and takes the heap after GC before and after; then stops the parent and waits for
 * its {@code PostStop} (which comes after all children have stopped). All kinds in one JVM, in
 * rounds; the first round only warms up (class loading, JIT, dispatcher threads) and is not
 * reported. The figure includes everything an actor costs (cell, mailbox, ref, path, the parent's
 * child entry and the behavior); the difference to the bare kind is the supervisor's. Each kind's
 * behavior is built once and spawned N times, so a policy or strategy is shared, as in real use.
 *
 * <p>Usage: {@code MemoryPerActor [actors per kind, default 100000] [rounds, default 3]}.
 */
public final class MemoryPerActor {

  private MemoryPerActor() {}

  /** The parent's protocol (it spawns its children in its setup). */
  private interface ParentMsg {}

  private record StopAll() implements ParentMsg {}

  /**
   * Runs the measurement.
   *
   * @param args actors per kind, rounds
   * @throws Exception if the actor system fails
   */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "memory", Pekko.config());
    Map<Kind, List<Double>> perActor = new EnumMap<>(Kind.class);
    // BARE_AGAIN, the throughput benchmarks' negative control, would only repeat BARE here
    List<Kind> kinds = List.of(Kind.BARE, Kind.PEKKO, Kind.WRAP, Kind.INTERCEPT);
    try {
      for (int round = 0; round < rounds; round++) {
        for (Kind kind : kinds) {
          double bytes = measure(system, kind, n);
          if (round > 0) {
            perActor.computeIfAbsent(kind, k -> new ArrayList<>()).add(bytes);
          }
          System.out.printf(
              Locale.ROOT,
              "round %d %-5s %8.1f bytes/actor%s%n",
              round,
              kind,
              bytes,
              round == 0 ? " (warm-up, not reported)" : "");
        }
      }
    } finally {
      Pekko.terminate(system);
    }
    System.out.printf(
        Locale.ROOT,
        "%nMemory per idle actor, %,d actors per kind, median of %d rounds%n",
        n,
        rounds - 1);
    double bare = median(perActor.get(Kind.BARE));
    double pekko = median(perActor.get(Kind.PEKKO));
    System.out.printf(
        Locale.ROOT, "%-9s %12s %14s %12s%n", "kind", "bytes/actor", "over bare", "vs PEKKO");
    for (Kind kind : kinds) {
      double b = median(perActor.get(kind));
      System.out.printf(
          Locale.ROOT, "%-9s %12.1f %14.1f %11.1f%%%n", kind, b, b - bare, 100.0 * b / pekko);
    }
  }

  private static double measure(ActorSystem<Void> system, Kind kind, int n) throws Exception {
    long before = Heap.usedAfterGc();
    CountDownLatch answered = new CountDownLatch(n);
    CompletableFuture<ActorRef<ParentMsg>> spawned = new CompletableFuture<>();
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    // one behavior value spawned n times, as users do: the policy (or Pekko's strategy) is shared
    Behavior<Msg> behavior = kind.behavior();
    Behavior<ParentMsg> parent =
        Behaviors.setup(
            ctx -> {
              Flush flush = new Flush(count -> answered.countDown());
              for (int i = 0; i < n; i++) {
                ActorRef<Msg> child = ctx.spawnAnonymous(behavior);
                child.tell(flush);
              }
              spawned.complete(ctx.getSelf());
              return Behaviors.receive(ParentMsg.class)
                  .onMessage(StopAll.class, m -> Behaviors.stopped())
                  .onSignal(
                      PostStop.class,
                      s -> {
                        stopped.complete(null);
                        return Behaviors.same();
                      })
                  .build();
            });
    // the guardian is Behaviors.empty(), so the parent is spawned from the outside as a system
    // actor
    ActorRef<ParentMsg> parentRef =
        system.systemActorOf(
            parent,
            "parent-" + kind.name().toLowerCase(Locale.ROOT) + "-" + System.nanoTime(),
            Props.empty());
    spawned.get(5, TimeUnit.MINUTES);
    if (!answered.await(5, TimeUnit.MINUTES)) {
      throw new IllegalStateException(answered.getCount() + " actors did not answer");
    }
    long after = Heap.usedAfterGc();
    parentRef.tell(new StopAll());
    stopped.get(5, TimeUnit.MINUTES);
    return (after - before) / (double) n;
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int m = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(m) : (sorted.get(m - 1) + sorted.get(m)) / 2;
  }
}
