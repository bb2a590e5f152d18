package dev.supervision.backoff.stream.internal;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.stream.InnerStreamFinished;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.Shape;
import org.apache.pekko.stream.SubscriptionWithCancelException;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;
import scala.Tuple2;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;
import scala.util.control.NonFatal;

/**
 * The restart machinery that the source, flow and sink stages share: it decides, when the inner
 * stream ends, whether the outer stream ends too or the inner one is started again after a delay
 * drawn from the policy; it runs the reset timer, asks the restart budget for permits, logs and
 * reports events. Every method runs on the stage's thread (timers and the stage actor's messages
 * come through Pekko's async callbacks), so nothing here is synchronized.
 *
 * <p>The subclass materializes the inner stream ({@link #startInner()}), puts the outer ports into
 * their backoff handlers ({@link #enterBackoff()}) and reports how the inner stream ended through
 * {@link #innerCompleted(Runnable)}, {@link #innerFailed(Throwable)} and {@link
 * #innerCancelled(Throwable, Runnable)}.
 */
public abstract class RestartLogic extends TimerGraphStageLogic {

  private static final String RESTART = "restart";
  private static final String RESET = "reset";

  /** The budget's permit, sent by its gate to the stage actor. */
  private record Permit(long generation) implements Signal, DeadLetterSuppression {}

  private final StreamSpec spec;
  private final BackoffPolicy policy;
  private final Logger log;
  private final boolean listening;

  /** Set once the outer stream is ending: the inner stream then ends without a restart. */
  protected boolean finishing;

  private int restarts;
  private Iterator<Duration> delays;
  private SplittableRandom random;
  private boolean inBackoff;
  private boolean permitRequested;
  private boolean gaveUp;
  private long generation;
  private ActorRef<Object> self;
  private boolean stopped;
  private ActorSystem<Void> system;

  /** The attributes the stage was materialized with; the inner stream gets them too. */
  protected final Attributes inheritedAttributes;

  /**
   * The logic of one materialization.
   *
   * @param shape the stage's shape
   * @param spec what the stage was made of
   * @param inheritedAttributes the stage's attributes
   */
  protected RestartLogic(Shape shape, StreamSpec spec, Attributes inheritedAttributes) {
    super(shape);
    this.spec = spec;
    this.policy = spec.policy();
    this.inheritedAttributes = inheritedAttributes;
    this.log = LoggerFactory.getLogger(loggerName(spec.kind()));
    this.listening = !policy.getListeners().isEmpty() || policy.isEventStreamPublishing();
  }

  /** The logger of a kind of stage: {@code dev.supervision.backoff.stream.BackoffSource}, ... */
  static String loggerName(String kind) {
    return "dev.supervision.backoff.stream.Backoff"
        + Character.toUpperCase(kind.charAt(0))
        + kind.substring(1);
  }

  /**
   * Materializes a new inner stream and connects it to the outer ports.
   *
   * @throws Exception whatever the user's factory throws
   */
  protected abstract void startInner() throws Exception;

  /** Closes what is left of the inner stream and puts the outer ports into their backoff handlers. */
  protected abstract void enterBackoff();

  /**
   * The outer input of a sink or flow stage, fed to each inner stream through a source of its own.
   * During a backoff an element that the outer upstream pushes waits in the port for the next inner
   * stream, and the outer upstream's end ends the stage.
   *
   * @param <T> the element type
   */
  protected final class Feed<T> {
    private final Inlet<T> in;
    private final String name;
    private final AbstractInHandler backoff;
    private SubSourceOutlet<T> current;

    /**
     * The feed of {@code in}, in its backoff handler until the first {@link #start()}.
     *
     * @param in the stage's inlet
     * @param name the name of each inner source
     */
    public Feed(Inlet<T> in, String name) {
      this.in = in;
      this.name = name;
      this.backoff =
          new AbstractInHandler() {
            @Override
            public void onPush() {} // the element waits in the port for the next inner stream

            @Override
            public void onUpstreamFinish() {
              finishing = true;
              completeStage();
            }

            @Override
            public void onUpstreamFailure(Throwable ex) {
              finishing = true;
              failStage(ex);
            }
          };
      setHandler(in, backoff);
    }

    /**
     * Connects the outer input to a new inner source: the inner stream's demand pulls the outer
     * inlet; its cancellation is reported ({@link #innerCancelled}); the outer upstream's end ends
     * the inner source.
     *
     * @return the inner source's outlet, to materialize with {@code up.source()}
     */
    public SubSourceOutlet<T> start() {
      SubSourceOutlet<T> up = new SubSourceOutlet<>(name);
      current = up;
      up.setHandler(
          new AbstractOutHandler() {
            @Override
            public void onPull() {
              if (isAvailable(in)) {
                up.push(grab(in));
              } else if (!hasBeenPulled(in) && !isClosed(in)) {
                pull(in);
              }
            }

            @Override
            public void onDownstreamFinish(Throwable cause) {
              if (current == up) {
                innerCancelled(cause, () -> cancel(in, cause));
              }
            }
          });
      setHandler(
          in,
          new AbstractInHandler() {
            @Override
            public void onPush() {
              if (up.isAvailable()) {
                up.push(grab(in));
              }
            }

            @Override
            public void onUpstreamFinish() {
              finishing = true;
              if (!up.isClosed()) {
                up.complete();
              }
            }

            @Override
            public void onUpstreamFailure(Throwable ex) {
              finishing = true;
              if (!up.isClosed()) {
                up.fail(ex);
              }
            }
          });
      return up;
    }

    /** Puts the outer inlet into its backoff handler. */
    public void pause() {
      setHandler(in, backoff);
    }

    /** Completes the inner source, if it is still open, and forgets it. */
    public void release() {
      if (current != null) {
        if (!current.isClosed()) {
          current.complete();
        }
        current = null;
      }
    }
  }

  /**
   * The outer output of a source or flow stage, served by each inner stream through a sink of its
   * own. During a backoff downstream demand waits for the next inner stream, and a cancellation
   * from downstream ends the stage.
   *
   * @param <T> the element type
   */
  protected final class Drain<T> {
    private final Outlet<T> out;
    private final String name;
    private final boolean cancelStageWithInner;
    private final AbstractOutHandler backoff;
    private SubSinkInlet<T> current;

    /**
     * The drain of {@code out}, in its backoff handler until the first {@link #start()}.
     *
     * @param out the stage's outlet
     * @param name the name of each inner sink
     * @param cancelStageWithInner whether a cancellation from downstream cancels the stage at once
     *     as well as the inner stream (a source), or only the inner stream, whose cancellation of
     *     its own input then ends the stage (a flow)
     */
    public Drain(Outlet<T> out, String name, boolean cancelStageWithInner) {
      this.out = out;
      this.name = name;
      this.cancelStageWithInner = cancelStageWithInner;
      this.backoff =
          new AbstractOutHandler() {
            @Override
            public void onPull() {} // served by the next inner stream

            @Override
            public void onDownstreamFinish(Throwable cause) {
              finishing = true;
              cancelStage(cause);
            }
          };
      setHandler(out, backoff);
    }

    /**
     * Connects a new inner sink to the outer output: its elements go downstream, its completion
     * and failure are reported ({@link #innerCompleted}, {@link #innerFailed}); downstream demand
     * pulls it.
     *
     * @return the inner sink's inlet, to materialize with {@code down.sink()}
     */
    public SubSinkInlet<T> start() {
      SubSinkInlet<T> down = new SubSinkInlet<>(name);
      current = down;
      down.setHandler(
          new AbstractInHandler() {
            @Override
            public void onPush() {
              push(out, down.grab());
            }

            @Override
            public void onUpstreamFinish() {
              if (current == down) {
                innerCompleted(() -> complete(out));
              }
            }

            @Override
            public void onUpstreamFailure(Throwable ex) {
              if (current == down) {
                innerFailed(ex);
              }
            }
          });
      setHandler(
          out,
          new AbstractOutHandler() {
            @Override
            public void onPull() {
              down.pull();
            }

            @Override
            public void onDownstreamFinish(Throwable cause) {
              finishing = true;
              down.cancel(cause);
              if (cancelStageWithInner) {
                cancelStage(cause);
              }
            }
          });
      return down;
    }

    /** Puts the outer outlet into its backoff handler. */
    public void pause() {
      setHandler(out, backoff);
    }

    /** Cancels the inner sink, if it is still open, and forgets it. */
    public void release() {
      if (current != null) {
        if (!current.isClosed()) {
          current.cancel();
        }
        current = null;
      }
    }
  }

  @Override
  public String stageActorName() {
    return StreamNames.PREFIX + URLEncoder.encode(spec.name(), StandardCharsets.UTF_8);
  }

  @Override
  public void preStart() {
    system = Adapter.toTyped(materializer().system());
    if (policy.getBudget().isPresent()) {
      // registers the budget now, so that a conflicting one fails the stream at once with a clear
      // message instead of in the middle of a restart
      gate();
    }
    start();
  }

  @Override
  public void postStop() {
    stopped = true;
    if (permitRequested) {
      permitRequested = false;
      gate().tell(new GateProtocol.Cancel(self()));
    }
    if (inBackoff && !gaveUp) {
      inBackoff = false;
      log(
          Level.DEBUG,
          null,
          "Backoff {} [{}] stopped during its backoff",
          spec.kind(),
          spec.name());
      if (listening) {
        emit(new BackoffEvent.StoppedDuringBackoff(self(), restarts, 0));
      }
    }
  }

  /**
   * The stage actor, which names the stream in events and receives the budget's permits. Made on
   * first use (the first failure or finish), so that a stream that never restarts does not pay for
   * it.
   */
  private ActorRef<Object> self() {
    if (self == null) {
      self =
          Adapter.toTyped(
              getStageActor(
                      new AbstractFunction1<
                          Tuple2<org.apache.pekko.actor.ActorRef, Object>, BoxedUnit>() {
                        @Override
                        public BoxedUnit apply(
                            Tuple2<org.apache.pekko.actor.ActorRef, Object> pair) {
                          onMessage(pair._2());
                          return BoxedUnit.UNIT;
                        }
                      })
                  .ref());
    }
    return self;
  }

  // ---------------------------------------------------------------- how the inner stream ended

  /**
   * The inner source or flow completed.
   *
   * @param endOuter ends the outer stream's side that the completion reached
   */
  protected final void innerCompleted(Runnable endOuter) {
    ended(null, false, endOuter);
  }

  /**
   * The inner stream failed.
   *
   * @param failure the failure
   */
  protected final void innerFailed(Throwable failure) {
    ended(failure, false, null);
  }

  /**
   * The inner sink or flow cancelled its input. A cancellation with a failure as its cause is a
   * failure (a flow or sink that throws cancels its upstream with the exception); any other
   * cancellation is a finish, as a completion is.
   *
   * @param cause the cancellation's cause
   * @param endOuter cancels the outer stream's input, if the outer stream ends with a plain
   *     cancellation
   */
  protected final void innerCancelled(Throwable cause, Runnable endOuter) {
    if (cause instanceof SubscriptionWithCancelException.NonFailureCancellation) {
      ended(null, true, endOuter);
    } else {
      ended(cause, true, endOuter);
    }
  }

  private void ended(Throwable failure, boolean cancelled, Runnable endOuter) {
    if (failure != null && !NonFatal.apply(failure)) {
      failStage(failure);
      return;
    }
    if (finishing) {
      if (failure == null) {
        endOuter.run();
      } else {
        failStage(failure);
      }
      return;
    }
    cancelTimer(RESET);
    if (failure == null) {
      if (spec.onlyOnFailures()) {
        endOuter.run();
        return;
      }
      InnerStreamFinished finished = new InnerStreamFinished(spec.name(), spec.kind(), cancelled);
      if (maxRestartsReached()) {
        reportGiveUp(finished, BackoffEvent.Reason.MAX_RESTARTS_REACHED);
        enterBackoff();
        inBackoff = false;
        endOuter.run();
        completeStage();
        return;
      }
      scheduleRestart(finished, false);
      return;
    }
    if (policy.isPermanent(failure)) {
      giveUp(failure, BackoffEvent.Reason.PERMANENT_FAILURE);
      return;
    }
    if (policy.getBudget().orElse(null) instanceof RestartBudget.Adaptive) {
      gate().tell(new GateProtocol.Failed(self())); // an adaptive budget learns from failures
    }
    if (maxRestartsReached()) {
      giveUp(failure, BackoffEvent.Reason.MAX_RESTARTS_REACHED);
      return;
    }
    scheduleRestart(failure, true);
  }

  private boolean maxRestartsReached() {
    return policy.getMaxRestarts().isPresent() && restarts >= policy.getMaxRestarts().getAsInt();
  }

  private void giveUp(Throwable failure, BackoffEvent.Reason reason) {
    reportGiveUp(failure, reason);
    failStage(failure);
  }

  private void reportGiveUp(Throwable cause, BackoffEvent.Reason reason) {
    gaveUp = true;
    log(
        cause instanceof InnerStreamFinished ? Level.DEBUG : Level.ERROR,
        cause instanceof InnerStreamFinished ? null : cause,
        "Backoff {} [{}] stopped after {} restarts ({}): {}",
        spec.kind(),
        spec.name(),
        restarts,
        reason,
        describe(cause));
    if (listening) {
      emit(new BackoffEvent.GaveUp(self(), restarts, cause, reason, false));
    }
  }

  private void scheduleRestart(Throwable cause, boolean failure) {
    enterBackoff();
    restarts++;
    long delayNanos = nextDelayNanos();
    if (failure) {
      delayNanos = withRetryAfter(delayNanos, cause);
    }
    Duration delay = Duration.ofNanos(delayNanos);
    inBackoff = true;
    generation++;
    scheduleOnce(RESTART, delay);
    Level level =
        restarts > policy.getCriticalLogLevelAfter()
            ? policy.getCriticalLogLevel()
            : policy.getLogLevel();
    if (failure) {
      log(
          level,
          cause,
          "Backoff {} [{}] failed (attempt {}), restarting in {} ms: {}",
          spec.kind(),
          spec.name(),
          restarts,
          delay.toMillis(),
          describe(cause));
    } else {
      // as Pekko: a restart after a completion is logged at INFO, or at the policy's level if that
      // is less severe
      log(
          level.toInt() < Level.INFO.toInt() ? level : Level.INFO,
          null,
          "Backoff {} [{}] {} (attempt {}), restarting in {} ms",
          spec.kind(),
          spec.name(),
          ((InnerStreamFinished) cause).cancelled() ? "cancelled" : "completed",
          restarts,
          delay.toMillis());
    }
    if (listening) {
      emit(new BackoffEvent.RestartScheduled(self(), restarts, delay, cause, false));
    }
  }

  /** The policy's next delay, from the same schedule an actor of the policy draws from. */
  private long nextDelayNanos() {
    if (random == null) {
      random =
          new SplittableRandom(
              policy.getRandomSeed().isPresent()
                  ? policy.getRandomSeed().getAsLong() ^ StreamNames.hash(spec.name())
                  : ThreadLocalRandom.current().nextLong());
    }
    if (delays == null) {
      delays = policy.withUnlimitedRestarts().delays(random).iterator();
    }
    return delays.next().toNanos();
  }

  /**
   * The policy's delay, lengthened to the first usable {@link RetryAfter} hint of the cause chain,
   * as the core's supervisor does: {@code max(delay, min(hint, maxRetryAfter))}; null, zero,
   * negative and throwing hints are skipped.
   */
  private long withRetryAfter(long delayNanos, Throwable failure) {
    for (Throwable t : chain(failure)) {
      if (t instanceof RetryAfter hinted) {
        Duration hint;
        try {
          hint = hinted.retryAfter();
        } catch (Throwable broken) {
          if (!NonFatal.apply(broken)) {
            throw broken;
          }
          log(
              Level.WARN,
              broken,
              "Backoff {} [{}]: the RetryAfter hint of {} threw {}; ignored, the policy's delay applies",
              spec.kind(),
              spec.name(),
              t.getClass().getName(),
              describe(broken));
          continue;
        }
        if (hint != null && !hint.isNegative() && !hint.isZero()) {
          Duration max = policy.getMaxRetryAfter();
          long hintNanos = hint.compareTo(max) > 0 ? max.toNanos() : hint.toNanos();
          return Math.max(delayNanos, hintNanos);
        }
      }
    }
    return delayNanos;
  }

  /** The failure and its causes, outermost first, each once. */
  static List<Throwable> chain(Throwable failure) {
    List<Throwable> chain = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = failure; t != null && seen.add(t); t = causeOf(t)) {
      chain.add(t);
    }
    return chain;
  }

  private static Throwable causeOf(Throwable t) {
    try {
      return t.getCause();
    } catch (Throwable broken) {
      if (!NonFatal.apply(broken)) {
        throw broken;
      }
      return null;
    }
  }

  // ---------------------------------------------------------------- restart and reset

  @Override
  public void onTimer(Object key) {
    if (RESTART.equals(key)) {
      onRestartDue();
    } else if (RESET.equals(key)) {
      onResetDue();
    }
  }

  private void onRestartDue() {
    if (!inBackoff) {
      return;
    }
    if (policy.getBudget().isEmpty()) {
      restart();
      return;
    }
    String budget = policy.getBudget().get().getName();
    permitRequested = true;
    gate().tell(new GateProtocol.Acquire(self(), new Permit(generation)));
    log(
        Level.DEBUG,
        null,
        "Backoff {} [{}] waits for a permit of restart budget [{}] (attempt {})",
        spec.kind(),
        spec.name(),
        budget,
        restarts);
    if (listening) {
      emit(new BackoffEvent.WaitingForPermit(self(), restarts, budget));
    }
  }

  private void onMessage(Object message) {
    if (message instanceof Permit permit
        && permitRequested
        && inBackoff
        && permit.generation() == generation) {
      permitRequested = false;
      if (listening) {
        emit(new BackoffEvent.PermitGranted(self(), restarts, policy.getBudget().get().getName()));
      }
      restart();
      if (!inBackoff && policy.getBudget().get() instanceof RestartBudget.Adaptive) {
        // the inner stream is materialized: an adaptive budget counts its probation from now
        gate().tell(new GateProtocol.Started(self()));
      }
    }
  }

  private void restart() {
    inBackoff = false;
    if (!start()) {
      return;
    }
    scheduleOnce(RESET, policy.getResetAfter());
    log(
        Level.DEBUG,
        null,
        "Backoff {} [{}] restarted (attempt {})",
        spec.kind(),
        spec.name(),
        restarts);
    if (listening) {
      emit(new BackoffEvent.Restarted(self(), restarts));
    }
  }

  /** Starts the inner stream; a factory or materialization that throws is the inner's failure. */
  private boolean start() {
    try {
      startInner();
      return true;
    } catch (Throwable t) {
      if (!NonFatal.apply(t)) {
        throw sneaky(t);
      }
      innerFailed(t);
      return false;
    }
  }

  private void onResetDue() {
    int before = restarts;
    restarts = 0;
    delays = null; // the schedule starts again at attempt 1; a seeded random goes on
    if (policy.getRandomSeed().isEmpty()) {
      random = null;
    }
    log(
        Level.DEBUG,
        null,
        "Backoff {} [{}] ran {} without failing: backoff reset after {} restarts",
        spec.kind(),
        spec.name(),
        policy.getResetAfter(),
        before);
    if (listening) {
      emit(new BackoffEvent.BackoffReset(self(), before));
    }
  }

  // ---------------------------------------------------------------- budget, logs, events

  private ActorRef<GateProtocol.Command> gate() {
    RestartBudget budget = policy.getBudget().get();
    return RestartBudgets.get(system).gate(budget);
  }

  private void log(Level level, Throwable cause, String format, Object... args) {
    if (!policy.isLoggingEnabled() || !log.isEnabledForLevel(level)) {
      return;
    }
    String previous = MDC.get("pekkoSource");
    // a stopped stage makes no stage actor any more; one that logged before has one
    MDC.put("pekkoSource", self == null && stopped ? spec.name() : self().path().toString());
    try {
      log.atLevel(level).setCause(cause).log(format, args);
    } catch (Throwable t) {
      if (!NonFatal.apply(t)) {
        throw sneaky(t);
      }
    } finally {
      if (previous == null) {
        MDC.remove("pekkoSource");
      } else {
        MDC.put("pekkoSource", previous);
      }
    }
  }

  private void emit(BackoffEvent event) {
    for (BackoffListener listener : policy.getListeners()) {
      try {
        listener.onEvent(event);
      } catch (Throwable t) {
        if (!NonFatal.apply(t)) {
          throw sneaky(t);
        }
        log(Level.WARN, t, "BackoffListener [{}] threw on {}; ignored", listener, event);
      }
    }
    if (policy.isEventStreamPublishing()) {
      system.eventStream().tell(new EventStream.Publish<>(event));
    }
  }

  private static String describe(Throwable failure) {
    try {
      return failure.toString();
    } catch (Throwable broken) {
      if (!NonFatal.apply(broken)) {
        throw sneaky(broken);
      }
      return failure.getClass().getName()
          + " (whose toString threw "
          + broken.getClass().getName()
          + ")";
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }
}
