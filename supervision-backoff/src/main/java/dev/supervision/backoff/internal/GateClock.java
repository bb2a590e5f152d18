package dev.supervision.backoff.internal;

import com.typesafe.config.Config;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * INTERNAL API: the one place where the library reads a clock. On Pekko's default scheduler, whose
 * timers follow {@code System.nanoTime} but fire late now and then and back to back after, a gate
 * that counted ticks could not tell a late tick; under any other scheduler ({@code ManualTime}) or
 * with {@code gate.clock = ticks} it reads none ({@link #TICKS}) and counts ticks as a test steps.
 */
public final class GateClock {

  public static final String KEY = "supervision-backoff.gate.clock";
  public static final GateClock TICKS = new GateClock(false);
  static final GateClock NANO_TIME = new GateClock(true);

  private static final String DEFAULT_SCHEDULER =
      "org.apache.pekko.actor.LightArrayRevolverScheduler";

  private final boolean reads;

  private GateClock(boolean reads) {
    this.reads = reads;
  }

  public static GateClock of(ActorSystem<?> system) {
    return of(system.settings().config(), system.classicSystem().scheduler().getClass().getName());
  }

  static GateClock of(Config config, String schedulerClass) {
    String setting = config.hasPath(KEY) ? config.getString(KEY) : "scheduler";
    return switch (setting) {
      case "ticks" -> TICKS;
      case "scheduler" -> DEFAULT_SCHEDULER.equals(schedulerClass) ? NANO_TIME : TICKS;
      default ->
          throw new IllegalArgumentException(
              KEY + " must be scheduler or ticks but was " + setting);
    };
  }

  /** If not, {@link #nanoTime} must not be called. */
  public boolean reads() {
    return reads;
  }

  public long nanoTime() {
    if (!reads) {
      throw new IllegalStateException("the gate clock is ticks: it reads no clock");
    }
    return System.nanoTime();
  }

  @Override
  public String toString() {
    return reads ? "GateClock[System.nanoTime]" : "GateClock[ticks]";
  }
}
