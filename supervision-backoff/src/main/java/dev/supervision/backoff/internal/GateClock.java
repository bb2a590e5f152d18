package dev.supervision.backoff.internal;

import com.typesafe.config.Config;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * INTERNAL API: the one place where the library reads a clock. A {@link BudgetGate} paces its
 * grants on it when the actor system runs Pekko's default scheduler ({@code
 * LightArrayRevolverScheduler}), whose timers follow {@code System.nanoTime} but fire in whole
 * milliseconds, late now and then, and back to back after a late one: a gate that counted its ticks
 * could not tell a late tick from one on time. Under any other scheduler (so under {@code
 * ManualTime}'s {@code ExplicitlyTriggeredScheduler}), or with {@code supervision-backoff.gate.clock
 * = ticks}, it reads no clock ({@link #TICKS}) and the gate counts its ticks, exactly as a test
 * steps them. Immutable and thread-safe.
 */
public final class GateClock {

  /** The configuration key that chooses the clock: {@code scheduler} (the default) or {@code ticks}. */
  public static final String KEY = "supervision-backoff.gate.clock";

  /** Reads no clock: the gate counts the ticks of its timers. */
  public static final GateClock TICKS = new GateClock(false);

  /** Reads {@code System.nanoTime}, the clock Pekko's default scheduler runs on. */
  static final GateClock NANO_TIME = new GateClock(true);

  private static final String DEFAULT_SCHEDULER =
      "org.apache.pekko.actor.LightArrayRevolverScheduler";

  private final boolean reads;

  private GateClock(boolean reads) {
    this.reads = reads;
  }

  /**
   * The clock for the gates of {@code system}: {@code System.nanoTime} if the system runs Pekko's
   * default scheduler and the setting is {@code scheduler}, else {@link #TICKS}.
   *
   * @param system the actor system
   * @return its gates' clock
   * @throws IllegalArgumentException if the setting is neither {@code scheduler} nor {@code ticks}
   */
  public static GateClock of(ActorSystem<?> system) {
    return of(system.settings().config(), system.classicSystem().scheduler().getClass().getName());
  }

  /**
   * The clock for a configuration and the class name of the scheduler.
   *
   * @param config the actor system's configuration
   * @param schedulerClass the scheduler's class name
   * @return the clock
   * @throws IllegalArgumentException if the setting is neither {@code scheduler} nor {@code ticks}
   */
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

  /**
   * Whether it reads a clock; if not, {@link #nanoTime} must not be called.
   *
   * @return {@code true} for {@code System.nanoTime}, {@code false} for {@link #TICKS}
   */
  public boolean reads() {
    return reads;
  }

  /**
   * The time now, of {@code System.nanoTime}.
   *
   * @return nanoseconds, from an arbitrary origin, never decreasing
   * @throws IllegalStateException if this is {@link #TICKS}, which reads no clock
   */
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
