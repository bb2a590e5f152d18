package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.internal.util.Causes;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.slf4j.event.Level;

/**
 * INTERNAL API: a supervisor's log lines and events, each step's in one method; events are built
 * only if anyone listens. Stateless, and off the per-message path.
 */
final class SupervisorReports {

  private SupervisorReports() {}

  static void restartScheduled(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      int restarts,
      Throwable failure,
      boolean stopped,
      Duration delay) {
    if (policy.isLoggingEnabled()) {
      Level level =
          restarts > policy.getCriticalLogLevelAfter()
              ? policy.getCriticalLogLevel()
              : policy.getLogLevel();
      String described = stopped ? "" : Causes.describe(failure);
      herdOrOwnLine(
          policy,
          jctx,
          new HerdLog.Report(
              stopped ? HerdLog.Kind.STOPPED : HerdLog.Kind.FAILED,
              stopped ? "stop" : failure.getClass().getName(),
              level,
              described,
              stopped ? null : failure,
              jctx.getSelf().path().toString()),
          stopped
              ? "Supervised actor [{}] stopped itself (attempt {}), restarting in {} ms"
              : "Supervised actor [{}] failed (attempt {}), restarting in {} ms: {}",
          restarts,
          delay.toMillis(),
          described); // a stop's line has no placeholder for it
    }
    emit(
        policy,
        jctx,
        () -> new BackoffEvent.RestartScheduled(jctx.getSelf(), restarts, delay, failure, stopped));
  }

  /** With aggregated logging the herd's log counts the report and the actor's line is DEBUG. */
  private static void herdOrOwnLine(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      HerdLog.Report report,
      String format,
      Object... args) {
    Level level = report.level();
    if (policy.isAggregatedLogging()) {
      if (SupervisorLog.LOG.isEnabledForLevel(level)) {
        HerdLog.get(jctx.getSystem()).report(report);
      }
      level = Level.DEBUG;
    }
    log(policy, jctx, level, report.trace(), format, args);
  }

  static void gaveUp(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      int restarts,
      Throwable failure,
      BackoffEvent.Reason reason,
      boolean stopped) {
    if (policy.isLoggingEnabled()) {
      Throwable trace = stopped ? null : failure;
      String described = Causes.describe(failure);
      herdOrOwnLine(
          policy,
          jctx,
          new HerdLog.Report(
              HerdLog.Kind.GAVE_UP,
              reason + "|" + failure.getClass().getName(),
              Level.ERROR,
              "(" + reason + "): " + described,
              trace,
              jctx.getSelf().path().toString()),
          "Supervised actor [{}] stopped after {} restarts ({}): {}",
          restarts,
          reason,
          described);
    }
    emit(
        policy,
        jctx,
        () -> new BackoffEvent.GaveUp(jctx.getSelf(), restarts, failure, reason, stopped));
  }

  static void innerStop(BackoffPolicy policy, ActorContext<?> jctx, int restarts, Throwable cause) {
    debugAndEmit(
        policy,
        jctx,
        () ->
            new BackoffEvent.GaveUp(
                jctx.getSelf(), restarts, cause, BackoffEvent.Reason.INNER_STOP, false),
        "Supervised actor [{}] stopped by a supervisor inside it (not restarted): {}",
        Causes.describe(cause));
  }

  static void waitingForPermit(
      BackoffPolicy policy, ActorContext<?> jctx, int restarts, String budget) {
    debugAndEmit(
        policy,
        jctx,
        () -> new BackoffEvent.WaitingForPermit(jctx.getSelf(), restarts, budget),
        "Supervised actor [{}] waits for a permit of restart budget [{}] (attempt {})",
        budget,
        restarts);
  }

  /** An event only: the restart's line follows. */
  static void permitGranted(
      BackoffPolicy policy, ActorContext<?> jctx, int restarts, String budget) {
    emit(policy, jctx, () -> new BackoffEvent.PermitGranted(jctx.getSelf(), restarts, budget));
  }

  static void restarted(BackoffPolicy policy, ActorContext<?> jctx, int restarts) {
    debugAndEmit(
        policy,
        jctx,
        () -> new BackoffEvent.Restarted(jctx.getSelf(), restarts),
        "Supervised actor [{}] restarted (attempt {})",
        restarts);
  }

  static void reset(BackoffPolicy policy, ActorContext<?> jctx, int before, boolean byChild) {
    Supplier<BackoffEvent> event = () -> new BackoffEvent.BackoffReset(jctx.getSelf(), before);
    if (byChild) {
      debugAndEmit(
          policy, jctx, event, "Supervised actor [{}] reset its backoff after {} restarts", before);
    } else {
      debugAndEmit(
          policy,
          jctx,
          event,
          "Supervised actor [{}] ran {} without failing: backoff reset after {} restarts",
          policy.getResetAfter(),
          before);
    }
  }

  static void stoppedDuringBackoff(
      BackoffPolicy policy, ActorContext<?> jctx, int restarts, int dropped) {
    debugAndEmit(
        policy,
        jctx,
        () -> new BackoffEvent.StoppedDuringBackoff(jctx.getSelf(), restarts, dropped),
        "Supervised actor [{}] stopped during its backoff; {} stashed messages dropped",
        dropped);
  }

  private static void debugAndEmit(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      Supplier<BackoffEvent> event,
      String format,
      Object... args) {
    log(policy, jctx, Level.DEBUG, null, format, args);
    emit(policy, jctx, event);
  }

  static void signalHandlerThrew(
      BackoffPolicy policy, ActorContext<?> jctx, Throwable t, String where) {
    Causes.rethrowIfFatal(t);
    log(
        policy,
        jctx,
        Level.ERROR,
        t,
        "Supervised actor [{}] failed in {}; the restart goes on",
        where);
  }

  static void callbackThrew(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      Throwable t,
      String what,
      Object callback,
      Object msg,
      String instead) {
    Causes.rethrowIfFatal(t);
    log(
        policy,
        jctx,
        Level.WARN,
        t,
        "Supervised actor [{}]: {} [{}] threw on a message of {}; {}",
        what,
        callback,
        msg == null ? "null" : msg.getClass().getName(),
        instead);
  }

  /** Every line goes through here, so that {@code withLoggingEnabled(false)} silences all. */
  static void log(
      BackoffPolicy policy,
      ActorContext<?> jctx,
      Level level,
      Throwable cause,
      String format,
      Object... args) {
    if (policy.isLoggingEnabled() && SupervisorLog.LOG.isEnabledForLevel(level)) {
      Object[] withPath = new Object[args.length + 1];
      withPath[0] = jctx.getSelf().path();
      System.arraycopy(args, 0, withPath, 1, args.length);
      SupervisorLog.write(
          SupervisorLog.LOG, level, cause, withPath[0].toString(), format, withPath);
    }
  }

  /** Builds the event only if a listener or the event stream wants it. */
  private static void emit(
      BackoffPolicy policy, ActorContext<?> jctx, Supplier<BackoffEvent> build) {
    if (policy.getListeners().isEmpty() && !policy.isEventStreamPublishing()) {
      return;
    }
    BackoffEvent event = build.get();
    for (BackoffListener listener : policy.getListeners()) {
      try {
        listener.onEvent(event);
      } catch (Throwable t) {
        Causes.rethrowIfFatal(t);
        if (policy.isLoggingEnabled()) {
          SupervisorLog.write(
              SupervisorLog.LOG,
              Level.WARN,
              t,
              jctx.getSelf().path().toString(),
              "BackoffListener [{}] threw on {}; ignored",
              listener,
              event);
        }
      }
    }
    if (policy.isEventStreamPublishing()) {
      jctx.getSystem().eventStream().tell(new EventStream.Publish<>(event));
    }
  }
}
