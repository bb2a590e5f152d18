package dev.supervision.backoff.testsupport;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.testkit.ExplicitlyTriggeredScheduler;
import scala.concurrent.ExecutionContext;
import scala.concurrent.duration.FiniteDuration;

/**
 * ManualTime's scheduler, counting the timer firings it runs, so that a test can count how often an
 * actor is woken without a hook in the code under test. Use {@link #config()} instead of {@code
 * ManualTime.config()}; {@code ManualTime.get(system)} works as usual.
 */
public final class CountingManualScheduler extends ExplicitlyTriggeredScheduler {

  private static final AtomicLong RUNS = new AtomicLong();

  /**
   * Made by Pekko from the system's settings.
   *
   * @param config the configuration
   * @param log the scheduler's log
   * @param tf the thread factory
   */
  public CountingManualScheduler(Config config, LoggingAdapter log, ThreadFactory tf) {
    super(config, log, tf);
  }

  /**
   * The configuration that installs this scheduler.
   *
   * @return {@code pekko.scheduler.implementation} set to this class
   */
  public static Config config() {
    return ConfigFactory.parseString(
        "pekko.scheduler.implementation = \"" + CountingManualScheduler.class.getName() + "\"");
  }

  /**
   * How many timer firings have run so far, in every system that uses this scheduler.
   *
   * @return the count
   */
  public static long runs() {
    return RUNS.get();
  }

  /**
   * A task that counts its runs and does nothing once cancelled: ManualTime's scheduler may put a
   * repeated task back after it ran even though an actor cancelled it meanwhile on its own thread,
   * and such a ghost would be counted for ever.
   */
  private static final class Counted implements Runnable, Cancellable {
    private final Runnable task;
    private volatile boolean cancelled;
    private volatile Cancellable scheduled;

    Counted(Runnable task) {
      this.task = task;
    }

    @Override
    public void run() {
      if (!cancelled) {
        RUNS.incrementAndGet();
        task.run();
      }
    }

    @Override
    public boolean cancel() {
      cancelled = true;
      return scheduled.cancel();
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }
  }

  @Override
  public Cancellable scheduleOnce(
      FiniteDuration delay, Runnable runnable, ExecutionContext executor) {
    Counted counted = new Counted(runnable);
    counted.scheduled = super.scheduleOnce(delay, counted, executor);
    return counted;
  }

  @Override
  public Cancellable schedule(
      FiniteDuration initialDelay,
      FiniteDuration interval,
      Runnable runnable,
      ExecutionContext executor) {
    Counted counted = new Counted(runnable);
    counted.scheduled = super.schedule(initialDelay, interval, counted, executor);
    return counted;
  }
}
