package dev.supervision.bench;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.GateProtocol;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * What an idle budget costs: the process's CPU time (com.sun.management's {@code
 * getProcessCpuTime}) over {@code seconds} at {@code pekko.scheduler.tick-duration = 1ms}, side by
 * side: with no gate; with {@code gates} budgets' gates that have each granted one permit and gone
 * idle; with none again (the gates released); and, for scale, with the same number of gates that
 * each have an actor waiting (so that they wake at every tick).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.supervision.bench.IdleGateCost [gates] [seconds] [adaptive|fixed]
 * </pre>
 */
public final class IdleGateCost {

  private IdleGateCost() {}

  private record Grant() implements Signal {}

  /**
   * Runs the measurement and prints it.
   *
   * @param args the number of gates (default 1,000), the seconds per phase (default 10) and the kind
   *     of budget (default adaptive)
   * @throws Exception if the measurement fails
   */
  public static void main(String[] args) throws Exception {
    int gates = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    String kind = args.length > 2 ? args[2] : "adaptive";
    ActorSystem<Void> system =
        ActorSystem.create(
            Behaviors.empty(),
            "idle-gates",
            ConfigFactory.parseString("pekko.scheduler.tick-duration = 1ms")
                .withFallback(ConfigFactory.load()));
    try {
      RestartBudgets budgets = RestartBudgets.get(system);
      Thread.sleep(3000); // start-up settles
      double none = cpu(seconds);
      report("no gate", none, none, 0, seconds);

      List<String> names = new ArrayList<>();
      CountDownLatch granted = new CountDownLatch(gates);
      for (int i = 0; i < gates; i++) {
        String name = "idle-" + i;
        names.add(name);
        RestartBudget budget =
            kind.equals("fixed")
                ? RestartBudget.of(name, 100, Duration.ofSeconds(1))
                : RestartBudget.adaptive(name);
        ActorRef<GateProtocol.Command> gate = budgets.gate(budget);
        system.systemActorOf(
            Behaviors.setup(
                ctx -> {
                  gate.tell(new GateProtocol.Acquire(ctx.getSelf().unsafeUpcast(), new Grant()));
                  return Behaviors.receive(Object.class)
                      .onSignal(
                          Grant.class,
                          g -> {
                            granted.countDown();
                            return Behaviors.same();
                          })
                      .build();
                }),
            "requester-" + i,
            Props.empty());
      }
      if (!granted.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not every gate granted its permit");
      }
      Thread.sleep(5000); // the gates forget their grants and go idle
      report(gates + " idle " + kind + " gates", cpu(seconds), none, gates, seconds);

      names.forEach(budgets::release);
      Thread.sleep(3000);
      report("no gate again (released)", cpu(seconds), none, 0, seconds);

      // for scale: gates that wake at every tick (each has an actor waiting for an hour's permit)
      for (int i = 0; i < gates; i++) {
        RestartBudget budget = RestartBudget.of("busy-" + i, 1, Duration.ofHours(1)).withBurst(1);
        ActorRef<GateProtocol.Command> gate = budgets.gate(budget);
        for (int k = 0; k < 2; k++) {
          system.systemActorOf(
              Behaviors.setup(
                  ctx -> {
                    gate.tell(new GateProtocol.Acquire(ctx.getSelf().unsafeUpcast(), new Grant()));
                    return Behaviors.receive(Object.class).build();
                  }),
              "waiter-" + i + "-" + k,
              Props.empty());
        }
      }
      Thread.sleep(3000);
      report(gates + " gates with an actor waiting", cpu(seconds), none, gates, seconds);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /** The process's CPU time over {@code seconds}, in nanoseconds per second of wall time. */
  private static double cpu(int seconds) throws InterruptedException {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
    long cpu1 = os.getProcessCpuTime();
    long t1 = System.nanoTime();
    return (cpu1 - cpu0) / ((t1 - t0) / 1e9);
  }

  private static void report(String phase, double cpuPerSecond, double none, int gates, int s) {
    System.out.printf(
        Locale.ROOT,
        "%-40s %d s: CPU %.1f ms per s (%.2f %% of a core)%s%n",
        phase,
        s,
        cpuPerSecond / 1e6,
        cpuPerSecond / 1e7,
        gates == 0
            ? ""
            : String.format(
                Locale.ROOT,
                "; %+.1f ms per s against no gate, %+.2f us per s per gate",
                (cpuPerSecond - none) / 1e6,
                (cpuPerSecond - none) / 1e3 / gates));
  }
}
