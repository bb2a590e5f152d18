package dev.supervision.herd;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The real mode: the cells are actors in a real Pekko {@code ActorSystem} with the real scheduler,
 * supervised by the strategy's real supervisor. Each row gets an {@code ActorSystem} of its own, so
 * nothing (a dispatcher still busy, a pending timer) carries over from one row to the next.
 */
public final class RealHerd {

  /** How often the run checks on the cells and reports progress, in real time. */
  private static final long POLL_MILLIS = 100;

  private RealHerd() {}

  /** The guardian's only message: the outage has begun, call the resource. */
  private enum Strike {
    INSTANCE
  }

  /**
   * The configuration of every herd system: quiet logging, and a dispatcher of its own for Pekko's
   * immediate restart, so that its spinning holds at most two threads.
   *
   * @param limited whether the resource sits behind a rate limiter: then the scheduler ticks every
   *     millisecond (instead of Pekko's 10 ms), the setting the budget documentation recommends behind
   *     a limiter that counts in milliseconds, so that a budget's paced grants are a millisecond
   *     apart rather than ten
   * @return the configuration, with the application's own configuration as fallback
   */
  static Config config(boolean limited) {
    return ConfigFactory.parseString(
            (limited ? "pekko.scheduler.tick-duration = 1ms\n" : "")
                + "pekko.loglevel = WARNING\n"
                // everything the system logs goes through SLF4J to logback's console appender,
                // which writes to whatever System.err is: the row's log file (RowLog)
                + "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]\n"
                + "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"\n"
                + "pekko.stdout-loglevel = OFF\n"
                // Pekko's immediate restart overflows the stack (see docs/herd.md); that must end
                // the row's own ActorSystem, not the JVM and the rows after it.
                + "pekko.jvm-exit-on-fatal-error = off\n"
                + "pekko.log-dead-letters = off\n"
                + "pekko.log-dead-letters-during-shutdown = off\n"
                + "pekko.actor.typed.restart-stash-capacity = 1000\n"
                + Strategies.SPIN_DISPATCHER
                + " {\n"
                + "  type = Dispatcher\n"
                + "  executor = thread-pool-executor\n"
                + "  thread-pool-executor.fixed-pool-size = 2\n"
                + "  throughput = 100\n"
                + "}\n")
        .withFallback(ConfigFactory.load());
  }

  /**
   * Runs one strategy on the scenario in real time (scaled by the scenario's scale).
   *
   * @param strategy the strategy
   * @param scenario the scenario
   * @param progress told about the run every 100 ms of real time
   * @param row this strategy's row, 1-based, for the progress
   * @param rows the number of rows
   * @return the measurements
   * @throws IllegalStateException if the cells do not start within a minute
   */
  public static StrategyResult run(
      HerdStrategy strategy, HerdScenario scenario, Progress progress, int row, int rows) {
    int cells = scenario.cells();
    long outageNanos = scenario.outage().toNanos();
    long horizonNanos = scenario.horizon(strategy.extraTime(scenario)).toNanos();
    CallTrace trace = new CallTrace(cells, outageNanos, horizonNanos);
    SimulatedResource resource =
        new SimulatedResource(trace, scenario.scale(), scenario.resource(), outageNanos);
    RowLog log;
    try {
      log = RowLog.open(scenario.outputDir().resolve("logs").resolve(strategy.id() + ".log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StrategyResult result;
    String ended;
    RowLog.Summary printed;
    try {
      HerdStrategy.RealRun run = strategy.real(scenario);
      Behavior<Strike> guardian =
          Behaviors.setup(
              ctx -> {
                List<ActorRef<Cell.Command>> herd = new ArrayList<>(cells);
                for (int i = 0; i < cells; i++) {
                  herd.add(ctx.spawn(run.cell(i, resource), "cell-" + i, run.props()));
                }
                return Behaviors.receiveMessage(
                    strike -> {
                      for (ActorRef<Cell.Command> cell : herd) {
                        cell.tell(Cell.Call.INSTANCE);
                      }
                      return Behaviors.same();
                    });
              });
      ActorSystem<Strike> system =
          ActorSystem.create(
              guardian,
              "herd-" + strategy.id().replaceAll("[^A-Za-z0-9_-]", "_"),
              config(scenario.resource().limited()));
      try {
        awaitStarted(resource, cells);
        long wallStart = System.nanoTime();
        resource.strike();
        system.tell(Strike.INSTANCE);
        long horizonRealNanos = (long) (horizonNanos * scenario.scale());
        // A row whose ActorSystem begins to shut down (Pekko does that on a fatal error) ends at
        // once;
        // the termination, which takes seconds while cells still recurse, is awaited below.
        CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
        while (trace.recovered() < cells
            && System.nanoTime() - wallStart < horizonRealNanos
            && shutdown.getShutdownReason().isEmpty()) {
          sleep(POLL_MILLIS);
          progress.update(
              row,
              rows,
              strategy.id(),
              resource.modelNanosSinceStrike() / 1_000_000,
              trace.recovered(),
              cells,
              trace.calls());
        }
        long wallMillis = (System.nanoTime() - wallStart) / 1_000_000;
        long modelMillis = resource.modelNanosSinceStrike() / 1_000_000;
        if (trace.recovered() == cells) {
          ended = "all recovered";
        } else if (shutdown.getShutdownReason().isPresent()) {
          ended = "its ActorSystem shut down at " + modelMillis + " ms";
        } else {
          ended =
              "stopped at the horizon (" + (horizonNanos - outageNanos) / 1_000_000_000L + " s)";
        }
        // measured now: what cells do while their ActorSystem terminates is not the
        // strategy's doing
        result =
            trace.result(
                strategy.id(), strategy.description(), wallMillis, ended, resource.crashes());
      } finally {
        shutdown(system);
      }
    } finally {
      printed = log.finish();
    }
    String extra = printed.shortText();
    result = result.withLogLines(printed.logLines());
    return extra.isEmpty() ? result : result.withOutcome(extra + ", " + result.outcome());
  }

  private static void shutdown(ActorSystem<?> system) {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      awaitThreads(system.name(), 30_000);
    } catch (TimeoutException | ExecutionException e) {
      // still inside the row's log: the warning goes there
      System.err.println(
          "herd: warning: actor system " + system.name() + " did not terminate: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits for the threads of a terminated system to end. A dispatcher thread that was deep in Pekko's
   * restart recursion when its system terminated keeps recursing and reports its stack overflow
   * afterwards, straight to standard error: that must still land in the row's log.
   */
  static void awaitThreads(String systemName, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(systemName + "-") && t != Thread.currentThread()) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return;
        }
        t.join(left);
      }
    }
  }

  /** Waits until every cell has connected once, while the resource is still up. */
  private static void awaitStarted(SimulatedResource resource, int cells) {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (resource.callsBeforeStrike() < cells) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "only "
                + resource.callsBeforeStrike()
                + " of "
                + cells
                + " cells started within a minute");
      }
      sleep(5);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
