package dev.supervision.bench;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The cost of a restart budget's gate: permits per second through one gate (closed loop: 1,000
 * requesters, each asking again as soon as it is granted), and the heap held per waiting actor with
 * 1,000,000 actors waiting in one gate.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xmx4g -cp benchmarks/target/benchmarks.jar dev.supervision.bench.GateBenchmark
 * </pre>
 */
public final class GateBenchmark {

  private GateBenchmark() {}

  private record Grant() implements Signal {}

  /**
   * Runs both measurements and prints them.
   *
   * @param args ignored
   * @throws Exception if a measurement fails
   */
  public static void main(String[] args) throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "gate-bench");
    try {
      RestartBudget unlimited =
          RestartBudget.of("unlimited", Integer.MAX_VALUE, Duration.ofSeconds(1))
              .withBurst(Integer.MAX_VALUE);
      throughput(system, unlimited, "fixed, never short of permits");
      throughput(system, RestartBudget.adaptive("adaptive-steady"), "adaptive, steady");
      throughput(
          system,
          RestartBudget.of("throttled", 200_000, Duration.ofSeconds(1)),
          "fixed, 200,000 per second");
      waiting(system, 1_000_000);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void throughput(ActorSystem<Void> system, RestartBudget budget, String label)
      throws Exception {
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(system).gate(budget);
    AtomicLong granted = new AtomicLong();
    List<ActorRef<Object>> requesters = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      requesters.add(
          system.systemActorOf(
              Behaviors.setup(
                  ctx ->
                      Behaviors.receive(Object.class)
                          .onSignal(
                              Grant.class,
                              g -> {
                                granted.incrementAndGet();
                                gate.tell(new GateProtocol.Acquire(ctx.getSelf(), g));
                                return Behaviors.same();
                              })
                          .onMessageEquals("stop", Behaviors::stopped)
                          .build()),
              budget.getName() + "-requester-" + i,
              Props.empty()));
    }
    Grant grant = new Grant();
    requesters.forEach(r -> gate.tell(new GateProtocol.Acquire(r, grant)));
    Thread.sleep(3000); // warm-up
    long from = granted.get();
    long t0 = System.nanoTime();
    Thread.sleep(5000);
    long n = granted.get() - from;
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf("%-32s %,12.0f permits per second%n", label, n / seconds);
    requesters.forEach(r -> r.tell("stop"));
    Thread.sleep(500);
  }

  private static void waiting(ActorSystem<Void> system, int actors) throws Exception {
    RestartBudget budget = RestartBudget.of("scarce", 1, Duration.ofDays(180)).withBurst(1);
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(system).gate(budget);
    List<ActorRef<Object>> waiters = new ArrayList<>(actors);
    for (int i = 0; i < actors; i++) {
      waiters.add(system.systemActorOf(Behaviors.<Object>empty(), "waiter-" + i, Props.empty()));
    }
    long before = Heap.usedAfterGc();
    long t0 = System.nanoTime();
    Grant grant = new Grant();
    for (ActorRef<Object> w : waiters) {
      gate.tell(new GateProtocol.Acquire(w, grant));
    }
    int queued;
    do {
      Thread.sleep(200);
      queued =
          AskPattern.<GateProtocol.Command, Integer>ask(
                  gate, GateProtocol.Waiting::new, Duration.ofSeconds(30), system.scheduler())
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
    } while (queued < actors - 1);
    double seconds = (System.nanoTime() - t0) / 1e9;
    long after = Heap.usedAfterGc();
    System.out.printf(
        "%,d actors waiting in one gate: queued in %.1f s (%,.0f per second), %.0f bytes per waiting actor in the gate, heap %,d MiB%n",
        queued, seconds, queued / seconds, (after - before) / (double) queued, after >> 20);
  }
}
