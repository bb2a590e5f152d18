package dev.supervision.bench;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A herd behind a real rate limiter: {@code cells} actors wrapped with {@code
 * BackoffSupervisor.wrap}, each calling an HTTP endpoint (nginx's {@code limit_req}, started by
 * {@code bench/nginx-limiter}) in its {@code Behaviors.setup}, so that every restart is a request.
 * The harness takes the resource down for {@code outage} (it creates the flag file that makes nginx
 * answer 503 before its limiter), makes every cell call it once (they all fail), brings it back and
 * measures how long the herd takes until every cell has started again, in units of N/C ({@code
 * cells / rate}: the least time a limiter of {@code rate} per second allows). The limiter answers
 * 429. For each rejected call it also records how long after the last accepted call it was sent.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.supervision.bench.NginxLimiterHarness \
 *     URL FLAG_FILE STRATEGY [cells] [rate] [outage-ms] [gate-clock]
 * </pre>
 *
 * {@code STRATEGY} is {@code adaptive} (full jitter with an adaptive {@code RestartBudget}),
 * {@code fixed:R} (full jitter with a fixed budget of {@code R} per second, burst 1: told the
 * rate) or {@code full} (full jitter alone); each {@code exponential(100ms, 20s)}, as the herd's rows. The
 * actor system runs at {@code pekko.scheduler.tick-duration = 1ms}; {@code gate-clock} is {@code
 * supervision-backoff.gate.clock} ({@code scheduler}, the default, or {@code ticks}).
 */
public final class NginxLimiterHarness {

  private NginxLimiterHarness() {}

  /** Set once the outage begins: before it, a cell's start calls nothing. */
  private static volatile boolean armed;

  /** The adaptive budget's rate, as last polled. */
  private static volatile double budgetRate = Double.NaN;

  private enum Call {
    INSTANCE
  }

  /**
   * Runs one row and prints its figures.
   *
   * @param args URL, flag file, strategy, then optionally cells, rate, outage in ms, gate clock
   * @throws Exception if the run fails
   */
  public static void main(String[] args) throws Exception {
    URI url = URI.create(args[0]);
    Path flag = Path.of(args[1]);
    String strategy = args[2];
    int cells = args.length > 3 ? Integer.parseInt(args[3]) : 2000;
    int rate = args.length > 4 ? Integer.parseInt(args[4]) : 200;
    long outageMs = args.length > 5 ? Long.parseLong(args[5]) : 2000;
    String gateClock = args.length > 6 ? args[6] : "scheduler";
    boolean timeline = args.length > 7 && args[7].equals("timeline");
    long horizonNanos = TimeUnit.SECONDS.toNanos(120);

    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    HttpRequest request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).GET().build();

    AtomicLongArray backAt = new AtomicLongArray(cells); // 0: not back
    AtomicInteger back = new AtomicInteger();
    AtomicInteger whileDown = new AtomicInteger();
    AtomicInteger rejected = new AtomicInteger();
    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger otherErrors = new AtomicInteger();
    // every call after the outage began: {sent, status, 1 if the budget's rate was above the
    // limiter's}
    ConcurrentLinkedQueue<long[]> calls = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<double[]> rates = new ConcurrentLinkedQueue<>(); // {nanoTime, rate}
    // the budget's rate, polled every 5 ms (adaptive only): a call rejected while it was above the
    // limiter's is the budget's learning, not its pacing

    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(20))
            .withJitter(Jitter.full())
            .withLoggingEnabled(false);
    if (strategy.equals("adaptive")) {
      policy = policy.withBudget(RestartBudget.adaptive("nginx"));
    } else if (strategy.startsWith("fixed:")) {
      // told the rate: the bound for a budget that had learnt it perfectly
      int permits;
      try {
        permits = Integer.parseInt(strategy.substring("fixed:".length()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "strategy fixed:R needs R, permits per second, but was " + strategy, e);
      }
      policy =
          policy.withBudget(RestartBudget.of("nginx", permits, Duration.ofSeconds(1)).withBurst(1));
    } else if (!strategy.equals("full")) {
      throw new IllegalArgumentException(
          "strategy must be adaptive, fixed:R or full but was " + strategy);
    }
    BackoffPolicy cellPolicy = policy;

    ActorSystem<Void> system =
        ActorSystem.create(
            Behaviors.empty(),
            "nginx-herd",
            ConfigFactory.parseString(
                    "pekko.scheduler.tick-duration = 1ms\n"
                        + "supervision-backoff.gate.clock = "
                        + gateClock
                        + "\n"
                        + "cells-dispatcher { type = Dispatcher, executor = thread-pool-executor,"
                        + " thread-pool-executor.fixed-pool-size = 8, throughput = 1 }\n"
                        + "pekko.loglevel = ERROR\n")
                .withFallback(ConfigFactory.load()));
    try {
      List<ActorRef<Call>> refs = new ArrayList<>(cells);
      for (int i = 0; i < cells; i++) {
        int index = i;
        Behavior<Call> cell =
            Behaviors.setup(
                ctx -> {
                  if (armed) {
                    long sent = System.nanoTime();
                    int status = call(http, request, otherErrors);
                    calls.add(new long[] {sent, status, budgetRate > rate ? 1 : 0});
                    if (status == 200) {
                      accepted.incrementAndGet();
                      // the flag answers 503 until after `up` is read: every 200 comes after it
                      if (backAt.compareAndSet(index, 0, System.nanoTime())) {
                        back.incrementAndGet();
                      }
                    } else {
                      if (status == 429) {
                        rejected.incrementAndGet();
                      } else if (status == 503) {
                        whileDown.incrementAndGet();
                      }
                      throw new IllegalStateException("HTTP " + status);
                    }
                  }
                  return Behaviors.receiveMessage(
                      c -> {
                        throw new IllegalStateException("the connection broke");
                      });
                });
        refs.add(
            system.systemActorOf(
                BackoffSupervisor.wrap(cell, cellPolicy),
                "cell-" + i,
                DispatcherSelector.fromConfig("cells-dispatcher")));
      }
      Thread.sleep(1000); // every cell has started, calling nothing
      if (strategy.equals("adaptive")) {
        Thread poller =
            new Thread(
                () -> {
                  RestartBudgets budgets = RestartBudgets.get(system);
                  while (!Thread.currentThread().isInterrupted()) {
                    try {
                      budgets
                          .status("nginx")
                          .toCompletableFuture()
                          .get(1, TimeUnit.SECONDS)
                          .ifPresent(
                              st -> {
                                budgetRate = st.rate();
                                rates.add(new double[] {System.nanoTime(), st.rate()});
                              });
                      Thread.sleep(5);
                    } catch (InterruptedException e) {
                      return;
                    } catch (Exception e) {
                      // the system is shutting down
                      return;
                    }
                  }
                },
                "budget-rate-poller");
        poller.setDaemon(true);
        poller.start();
      }
      Files.writeString(flag, "down");
      armed = true;
      long outageStart = System.nanoTime();
      refs.forEach(r -> r.tell(Call.INSTANCE));
      Thread.sleep(outageMs);
      long up = System.nanoTime();
      Files.deleteIfExists(flag);
      int rejectedBefore = rejected.get();
      while (back.get() < cells && System.nanoTime() - up < horizonNanos) {
        Thread.sleep(20);
      }
      long[] times = new long[cells];
      int n = 0;
      for (int i = 0; i < cells; i++) {
        long t = backAt.get(i);
        if (t != 0) {
          times[n++] = t - up;
        }
      }
      long[] sorted = Arrays.copyOf(times, n);
      Arrays.sort(sorted);
      double nc = cells / (double) rate;
      // for each call rejected while the budget's rate was at most the limiter's: how long after
      // the last accepted call (by the time sent) it was sent
      long[][] byTime = calls.toArray(new long[0][]);
      Arrays.sort(byTime, (a, b) -> Long.compare(a[0], b[0]));
      long lastAccepted = Long.MIN_VALUE;
      int rejectedAboveRate = 0;
      List<Long> gapList = new ArrayList<>();
      for (long[] c : byTime) {
        if (c[1] == 200) {
          lastAccepted = c[0];
        } else if (c[1] == 429) {
          if (c[2] == 1) {
            rejectedAboveRate++;
          } else if (lastAccepted != Long.MIN_VALUE) {
            gapList.add(c[0] - lastAccepted);
          }
        }
      }
      long[] gaps = gapList.stream().mapToLong(Long::longValue).sorted().toArray();
      long interval = TimeUnit.SECONDS.toNanos(1) / rate;
      long closer = Arrays.stream(gaps).filter(g -> g < interval).count();
      long closerByMs = Arrays.stream(gaps).filter(g -> g < interval - 1_000_000L).count();
      String result =
          n == cells
              ? String.format(
                  Locale.ROOT,
                  "%.2f x N/C (all back at %.2f s)",
                  sorted[n - 1] / 1e9 / nc,
                  sorted[n - 1] / 1e9)
              : String.format(
                  Locale.ROOT,
                  "%.1f %% back at %d s",
                  100.0 * n / cells,
                  horizonNanos / 1_000_000_000L);
      System.out.printf(
          Locale.ROOT,
          "nginx %d r/s, %d cells, %s, gate clock %s: %s; median cell back at %.2f s;"
              + " outage %d ms (%d calls while down, %.1f s after the outage began);"
              + " %d calls accepted, %d rejected by the limiter (%d after the outage; %d while the"
              + " budget's rate was above the limiter's), %d other errors; of the rest, sent less"
              + " than 1/rate after the last accepted call: %d (%d by more than 1 ms); their gap to"
              + " it p10/p50/p90 %s ms; busiest 1 s after the outage %d%n",
          rate,
          cells,
          strategy,
          gateClock,
          result,
          n == 0 ? Double.NaN : sorted[n / 2] / 1e9,
          outageMs,
          whileDown.get(),
          (up - outageStart) / 1e9,
          accepted.get(),
          rejected.get(),
          rejected.get() - rejectedBefore,
          rejectedAboveRate,
          otherErrors.get(),
          closer,
          closerByMs,
          gaps.length == 0
              ? "-"
              : String.format(
                  Locale.ROOT,
                  "%.2f/%.2f/%.2f",
                  gaps[gaps.length / 10] / 1e6,
                  gaps[gaps.length / 2] / 1e6,
                  gaps[gaps.length * 9 / 10] / 1e6),
          busiest(sorted));
      if (timeline) {
        System.out.println(timeline(byTime, rates, up));
      }
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Per second after the resource came back: the calls accepted and rejected, and the budget's
   * rate (its mean over the polls of that second).
   */
  private static String timeline(long[][] byTime, ConcurrentLinkedQueue<double[]> rates, long up) {
    StringBuilder out = new StringBuilder("   s: accepted/rejected/budget rate:");
    int seconds = 0;
    for (long[] c : byTime) {
      seconds = Math.max(seconds, (int) ((c[0] - up) / 1_000_000_000L) + 1);
    }
    for (int k = 0; k < seconds; k++) {
      long from = up + k * 1_000_000_000L;
      long to = from + 1_000_000_000L;
      int ok = 0;
      int no = 0;
      for (long[] c : byTime) {
        if (c[0] >= from && c[0] < to) {
          if (c[1] == 200) {
            ok++;
          } else if (c[1] == 429) {
            no++;
          }
        }
      }
      double sum = 0;
      int n = 0;
      for (double[] r : rates) {
        if (r[0] >= from && r[0] < to) {
          sum += r[1];
          n++;
        }
      }
      out.append(
          String.format(Locale.ROOT, " %d:%d/%d/%.0f", k, ok, no, n == 0 ? Double.NaN : sum / n));
    }
    return out.toString();
  }

  /** One GET: its status, or -1 for an I/O error (counted). */
  private static int call(HttpClient http, HttpRequest request, AtomicInteger errors) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      errors.incrementAndGet();
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The most cells back within any second. */
  private static int busiest(long[] sorted) {
    int best = 0;
    int j = 0;
    for (int i = 0; i < sorted.length; i++) {
      while (sorted[i] - sorted[j] >= 1_000_000_000L) {
        j++;
      }
      best = Math.max(best, i - j + 1);
    }
    return best;
  }
}
