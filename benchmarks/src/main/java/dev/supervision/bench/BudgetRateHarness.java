package dev.supervision.bench;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * How closely a fixed budget holds its rate in real time: {@code RestartBudget.of(name, 500, 1s)}
 * with actors always waiting (each asks again as soon as it is granted), for a minute; prints the
 * permits per second after the initial burst, and the most permits in any 1 ms and any 10 ms.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.supervision.bench.BudgetRateHarness [seconds] [tick]
 * </pre>
 *
 * {@code tick} is {@code pekko.scheduler.tick-duration} (default Pekko's 10ms).
 */
public final class BudgetRateHarness {

  private BudgetRateHarness() {}

  private record Grant() implements Signal {}

  /**
   * Runs the measurement and prints it.
   *
   * @param args the seconds to measure (default 60) and the scheduler's tick (default 10ms)
   * @throws Exception if the measurement fails
   */
  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
    String tick = args.length > 1 ? args[1] : "10ms";
    int permits = 500;
    ActorSystem<Void> system =
        ActorSystem.create(
            Behaviors.empty(),
            "budget-rate",
            ConfigFactory.parseString("pekko.scheduler.tick-duration = " + tick)
                .withFallback(ConfigFactory.load()));
    try {
      RestartBudget.Fixed budget = RestartBudget.of("rate", permits, Duration.ofSeconds(1));
      ActorRef<GateProtocol.Command> gate = RestartBudgets.get(system).gate(budget);
      int capacity = permits * (seconds + 5) + budget.getBurst() + 10;
      long[] at = new long[capacity];
      AtomicInteger n = new AtomicInteger();
      for (int i = 0; i < 100; i++) {
        system.systemActorOf(
            Behaviors.setup(
                ctx -> {
                  gate.tell(new GateProtocol.Acquire(ctx.getSelf().unsafeUpcast(), new Grant()));
                  return Behaviors.receive(Object.class)
                      .onSignal(
                          Grant.class,
                          g -> {
                            int k = n.getAndIncrement();
                            if (k < at.length) {
                              at[k] = System.nanoTime();
                            }
                            gate.tell(new GateProtocol.Acquire(ctx.getSelf(), g));
                            return Behaviors.same();
                          })
                      .build();
                }),
            "requester-" + i,
            Props.empty());
      }
      Thread.sleep(TimeUnit.SECONDS.toMillis(seconds) + 200);
      int count = Math.min(n.get(), at.length);
      long[] t = Arrays.copyOf(at, count);
      Arrays.sort(t);
      // the burst goes at once; the rate is measured from the first grant after it
      int from = budget.getBurst();
      long start = t[from];
      long end = start + TimeUnit.SECONDS.toNanos(seconds - 1);
      int inWindow = 0;
      for (int i = from; i < count && t[i] < end; i++) {
        inWindow++;
      }
      double rate = inWindow / ((end - start) / 1e9);
      System.out.printf(
          Locale.ROOT,
          "fixed budget %d/s, tick %s, %d s: %.1f permits/s after the burst of %d (%+.2f %%);"
              + " most in any 1 ms: %d, in any 10 ms: %d, in any 100 ms: %d%n",
          permits,
          tick,
          seconds - 1,
          rate,
          budget.getBurst(),
          100 * (rate - permits) / permits,
          most(t, from, 1_000_000L),
          most(t, from, 10_000_000L),
          most(t, from, 100_000_000L));
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static int most(long[] t, int from, long widthNanos) {
    int best = 0;
    int j = from;
    for (int i = from; i < t.length; i++) {
      while (t[i] - t[j] >= widthNanos) {
        j++;
      }
      best = Math.max(best, i - j + 1);
    }
    return best;
  }
}
