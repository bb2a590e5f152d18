package dev.supervision.backoff.internal;

import dev.supervision.backoff.internal.util.Causes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;

/**
 * INTERNAL API: the library's loggers and the one way their lines are written, by each actor's
 * supervisor ({@link SupervisorReports}), by the herd's log ({@link HerdLog}) and by the budgets'
 * gates ({@link BudgetGate}).
 *
 * <p>Not {@code ctx.getLog()}: Pekko names an actor's logger after the first class on the stack
 * that asks for it, so asking from here would rename the user's logger for the rest of the actor's
 * life, and a gate's would be named after a Pekko class. Every line sets the {@code pekkoSource} MDC key to an actor's path, as Pekko's actor
 * loggers do, and restores the key's previous value. A log call that throws (an argument's {@code
 * toString}, an appender) is ignored unless fatal: logging never stops a restart.
 */
final class SupervisorLog {

  /** The logger of every line of the library's supervisors. */
  static final Logger LOG = LoggerFactory.getLogger("dev.supervision.backoff.BackoffSupervisor");

  /** The logger of the budgets' gates (their state, rate and probe lines, at DEBUG). */
  static final Logger BUDGET = LoggerFactory.getLogger("dev.supervision.backoff.RestartBudget");

  private SupervisorLog() {}

  /**
   * Writes one line, if {@code level} is enabled.
   *
   * @param log {@link #LOG} or {@link #BUDGET}
   * @param level the line's level
   * @param cause the stack trace it carries, or null
   * @param actor the path of the actor it is about (the {@code pekkoSource} MDC key)
   * @param format the SLF4J format
   * @param args the format's arguments
   */
  static void write(
      Logger log, Level level, Throwable cause, String actor, String format, Object... args) {
    if (!log.isEnabledForLevel(level)) {
      return;
    }
    String previous = MDC.get("pekkoSource");
    MDC.put("pekkoSource", actor);
    try {
      log.atLevel(level).setCause(cause).log(format, args);
    } catch (Throwable t) {
      Causes.rethrowIfFatal(t);
    } finally {
      if (previous == null) {
        MDC.remove("pekkoSource");
      } else {
        MDC.put("pekkoSource", previous);
      }
    }
  }
}
