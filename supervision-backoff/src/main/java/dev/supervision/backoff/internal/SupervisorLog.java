package dev.supervision.backoff.internal;

import dev.supervision.backoff.internal.util.Causes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;

/**
 * INTERNAL API: the library's loggers and the one way their lines are written. Not {@code
 * ctx.getLog()}: Pekko names an actor's logger after the first class that asks, so asking here
 * would rename the user's logger. Sets {@code pekkoSource} as Pekko's loggers do and restores it.
 * A log call that throws is ignored unless fatal: logging never stops a restart.
 */
final class SupervisorLog {

  static final Logger LOG = LoggerFactory.getLogger("dev.supervision.backoff.BackoffSupervisor");
  static final Logger BUDGET = LoggerFactory.getLogger("dev.supervision.backoff.RestartBudget");

  private SupervisorLog() {}

  /** {@code actor}: the path for {@code pekkoSource}. */
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
