package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.ChildStopped;
import dev.supervision.backoff.internal.util.Causes;
import java.time.Duration;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: what a supervisor ({@link BackoffBehavior}) reports, its log lines and its events,
 * each step's line and event in one method. Stateless: every method takes the policy, whether
 * anyone listens ({@code listening}: events are built only then) and the actor's context. Called
 * only off the per-message path (failures, restarts, resets, stops).
 */
final class SupervisorReports {

  /**
   * The supervisor's own logger. Not {@code ctx.getLog()}: Pekko names an actor's logger after the
   * first class on the stack that asks for it, so asking from here would rename the user's logger
   * for the rest of the actor's life. Every line names the actor's path and sets the {@code
   * pekkoSource} MDC key as Pekko's actor loggers do.
   */
  static final Logger LOG = LoggerFactory.getLogger("dev.supervision.backoff.BackoffSupervisor");

  private SupervisorReports() {}

  /** A restart was scheduled; {@code stopped} for a stop of the child under restart on stop. */
  static void restartScheduled(
      BackoffPolicy policy,
      boolean listening,
      ActorContext<?> jctx,
      int restarts,
      Throwable failure,
      boolean stopped,
      Duration delay) {
    logFailure(policy, jctx, restarts, stopped ? null : failure, delay);
    if (listening) {
      emit(
          policy,
          jctx,
          new BackoffEvent.RestartScheduled(jctx.getSelf(), restarts, delay, failure));
    }
  }

  /** The line of a restart that was scheduled; {@code failure} is null for a stop of the child. */
  private static void logFailure(
      BackoffPolicy policy, ActorContext<?> jctx, int restarts, Throwable failure, Duration delay) {
    if (!policy.isLoggingEnabled()) {
      return;
    }
    Level level =
        restarts > policy.getCriticalLogLevelAfter()
            ? policy.getCriticalLogLevel()
            : policy.getLogLevel();
    if (failure == null) {
      if (policy.isAggregatedLogging()) {
        if (LOG.isEnabledForLevel(level)) {
          HerdLog.get(jctx.getSystem()).reportStop(level, jctx.getSelf().path().toString());
        }
        level = Level.DEBUG; // the actor's own line
      }
      log(
          policy,
          jctx,
          level,
          null,
          "Supervised actor [{}] stopped itself (attempt {}), restarting in {} ms",
          jctx.getSelf().path(),
          restarts,
          delay.toMillis());
      return;
    }
    if (policy.isAggregatedLogging()) {
      if (LOG.isEnabledForLevel(level)) {
        HerdLog.get(jctx.getSystem())
            .report(level, Causes.describe(failure), failure, jctx.getSelf().path().toString());
      }
      level = Level.DEBUG; // the actor's own line
    }
    log(
        policy,
        jctx,
        level,
        failure,
        "Supervised actor [{}] failed (attempt {}), restarting in {} ms: {}",
        jctx.getSelf().path(),
        restarts,
        delay.toMillis(),
        Causes.describe(failure));
  }

  /** The actor gave up: it stops after {@code restarts} restarts. */
  static void gaveUp(
      BackoffPolicy policy,
      boolean listening,
      ActorContext<?> jctx,
      int restarts,
      Throwable failure,
      BackoffEvent.Reason reason) {
    if (policy.isLoggingEnabled()) {
      Throwable trace = failure instanceof ChildStopped ? null : failure;
      Level level = Level.ERROR;
      if (policy.isAggregatedLogging()) {
        if (LOG.isEnabledForLevel(level)) {
          HerdLog.get(jctx.getSystem())
              .reportGaveUp(
                  level,
                  reason,
                  Causes.describe(failure),
                  failure,
                  trace,
                  jctx.getSelf().path().toString());
        }
        level = Level.DEBUG; // the actor's own line
      }
      log(
          policy,
          jctx,
          level,
          trace,
          "Supervised actor [{}] stopped after {} restarts ({}): {}",
          jctx.getSelf().path(),
          restarts,
          reason,
          Causes.describe(failure));
    }
    if (listening) {
      emit(policy, jctx, new BackoffEvent.GaveUp(jctx.getSelf(), restarts, failure, reason));
    }
  }

  /** A supervisor inside the child stopped it; the actor stops with {@code cause}. */
  static void innerStop(
      BackoffPolicy policy,
      boolean listening,
      ActorContext<?> jctx,
      int restarts,
      Throwable cause) {
    if (policy.isLoggingEnabled()) {
      log(
          policy,
          jctx,
          Level.DEBUG,
          null,
          "Supervised actor [{}] stopped by a supervisor inside it (not restarted): {}",
          jctx.getSelf().path(),
          Causes.describe(cause));
    }
    if (listening) {
      emit(
          policy,
          jctx,
          new BackoffEvent.GaveUp(jctx.getSelf(), restarts, cause, BackoffEvent.Reason.INNER_STOP));
    }
  }

  /** The actor asked its budget for a permit. */
  static void waitingForPermit(
      BackoffPolicy policy, boolean listening, ActorContext<?> jctx, int restarts, String budget) {
    debugAndEmit(
        policy,
        jctx,
        listening ? new BackoffEvent.WaitingForPermit(jctx.getSelf(), restarts, budget) : null,
        "Supervised actor [{}] waits for a permit of restart budget [{}] (attempt {})",
        jctx.getSelf().path(),
        budget,
        restarts);
  }

  /** The child was restarted. */
  static void restarted(
      BackoffPolicy policy, boolean listening, ActorContext<?> jctx, int restarts) {
    debugAndEmit(
        policy,
        jctx,
        listening ? new BackoffEvent.Restarted(jctx.getSelf(), restarts) : null,
        "Supervised actor [{}] restarted (attempt {})",
        jctx.getSelf().path(),
        restarts);
  }

  /** The restart count returned to 0: asked by the child ({@code byChild}) or after resetAfter. */
  static void reset(
      BackoffPolicy policy, boolean listening, ActorContext<?> jctx, int before, boolean byChild) {
    BackoffEvent event = listening ? new BackoffEvent.BackoffReset(jctx.getSelf(), before) : null;
    if (byChild) {
      debugAndEmit(
          policy,
          jctx,
          event,
          "Supervised actor [{}] reset its backoff after {} restarts",
          jctx.getSelf().path(),
          before);
    } else {
      debugAndEmit(
          policy,
          jctx,
          event,
          "Supervised actor [{}] ran {} without failing: backoff reset after {} restarts",
          jctx.getSelf().path(),
          policy.getResetAfter(),
          before);
    }
  }

  /** The actor stopped during its backoff; {@code dropped} stashed messages went to dead letters. */
  static void stoppedDuringBackoff(
      BackoffPolicy policy, boolean listening, ActorContext<?> jctx, int restarts, int dropped) {
    debugAndEmit(
        policy,
        jctx,
        listening ? new BackoffEvent.StoppedDuringBackoff(jctx.getSelf(), restarts, dropped) : null,
        "Supervised actor [{}] stopped during its backoff; {} stashed messages dropped",
        jctx.getSelf().path(),
        dropped);
  }

  /** A DEBUG line without a cause, then {@code event} unless it is null (nobody listens). */
  private static void debugAndEmit(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      BackoffEvent event,
      String format,
      Object... args) {
    log(policy, jctx, Level.DEBUG, null, format, args);
    if (event != null) {
      emit(policy, jctx, event);
    }
  }

  /**
   * Every line of the supervisor goes through here, so that {@code withLoggingEnabled(false)}
   * silences all of them. A log call that throws (an argument's {@code toString}, an appender) is
   * ignored: logging never stops a restart.
   */
  static void log(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      Level level,
      Throwable cause,
      String format,
      Object... args) {
    if (!policy.isLoggingEnabled() || !LOG.isEnabledForLevel(level)) {
      return;
    }
    String previous = MDC.get("pekkoSource");
    MDC.put("pekkoSource", jctx.getSelf().path().toString());
    try {
      LOG.atLevel(level).setCause(cause).log(format, args);
    } catch (Throwable t) {
      if (!NonFatal.apply(t)) {
        throw BackoffBehavior.sneaky(t);
      }
    } finally {
      if (previous == null) {
        MDC.remove("pekkoSource");
      } else {
        MDC.put("pekkoSource", previous);
      }
    }
  }

  /**
   * Gives {@code event} to every listener (one that throws gets a WARN line and is otherwise
   * ignored) and publishes it on the event stream if the policy asks for that.
   */
  static void emit(BackoffPolicy policy, ActorContext<?> jctx, BackoffEvent event) {
    for (BackoffListener listener : policy.getListeners()) {
      try {
        listener.onEvent(event);
      } catch (Throwable t) {
        if (!NonFatal.apply(t)) {
          throw BackoffBehavior.sneaky(t);
        }
        log(
            policy,
            jctx,
            Level.WARN,
            t,
            "BackoffListener [{}] threw on {}; ignored",
            listener,
            event);
      }
    }
    if (policy.isEventStreamPublishing()) {
      jctx.getSystem().eventStream().tell(new EventStream.Publish<>(event));
    }
  }
}
