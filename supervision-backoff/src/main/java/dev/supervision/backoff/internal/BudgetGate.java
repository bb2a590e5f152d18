package dev.supervision.backoff.internal;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.spi.GateProtocol.Cancel;
import dev.supervision.backoff.spi.GateProtocol.CollectReport;
import dev.supervision.backoff.spi.GateProtocol.Command;
import dev.supervision.backoff.spi.GateProtocol.Coordination;
import dev.supervision.backoff.spi.GateProtocol.Failed;
import dev.supervision.backoff.spi.GateProtocol.GrantLease;
import dev.supervision.backoff.spi.GateProtocol.Query;
import dev.supervision.backoff.spi.GateProtocol.Retire;
import dev.supervision.backoff.spi.GateProtocol.SetShare;
import dev.supervision.backoff.spi.GateProtocol.Started;
import dev.supervision.backoff.spi.GateProtocol.Status;
import dev.supervision.backoff.spi.GateProtocol.Waiting;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.event.Level;

/**
 * INTERNAL API: the gate actor of one {@link RestartBudget}, with a FIFO queue of waiting actors.
 *
 * <p><b>Clock.</b> While it has work, the gate wakes at every pacing tick ({@link #tickNanos}, the
 * scheduler's resolution, at least 1 ms). Its time is its {@link GateClock}'s: on Pekko's default
 * scheduler, that scheduler's clock, read at every message, so that a late tick is seen as late;
 * under any other scheduler ({@code ManualTime}) or with {@code supervision-backoff.gate.clock =
 * ticks}, its count of ticks, so that a test that steps the scheduler steps the gate exactly. The
 * ticks come from two fixed-<em>rate</em> timers of two ticks each, one tick apart: Pekko's timer
 * wheel cannot reschedule a task for the next tick from within a tick, so a timer of one tick fires
 * in pairs every two ticks. Fixed rate, not fixed delay: Pekko runs a late tick's successors sooner
 * (under {@code ManualTime} every due tick runs, in order), so rates hold against the clock instead
 * of drifting slow.
 *
 * <p><b>Pacing.</b> When a permit may go is the {@link Limiter}'s decision, one per kind of budget:
 * a fixed budget's {@link FixedLimiter} is its pacer, an adaptive budget's {@link AdaptiveLimiter}
 * its controller's rate, paced.
 *
 * <p><b>Stalls.</b> On a clock, the pacer's own rule bounds what goes in any interval of real time,
 * stalls included, and there is no release timer. Counting ticks, when the scheduler stalls (a long GC pause, a process waiting for a CPU), a
 * fixed-rate timer catches up the ticks it missed back to back, so the gate's clock jumps and the
 * permits of the stall would go out together, a clump that a rate limiter without burst rejects.
 * So the gate also runs a fixed-<em>delay</em> release timer ({@link Release}) at the tick, which
 * does not catch up (Pekko schedules its next firing a tick after the last ran), and lets at most
 * {@link Limiter#perRelease} permits go between two of its firings; beyond that the limiter {@link
 * Limiter#drop drops} what it offers. While the timers run on time (always under {@code
 * ManualTime}) the limit never binds. A stall of the gate's own actor (its mailbox filling with
 * ticks and releases alike) is not seen this way.
 *
 * <p>An adaptive budget's supervised actors tell the gate each failure ({@link Failed}) and, after a
 * permit restarted them, that the restarted behavior has started ({@link Started}); the gate knows
 * which of them it granted a restart recently, and counts a restart's probation from its start, so
 * that the outcome of a grant does not depend on how many ticks the gate ran before the actor did.
 *
 * <p>Robustness: a permit granted to an actor that stopped before it arrived comes back with the
 * actor's {@link Cancel} and goes to the next waiter (or back into the pacer). When the gate stops
 * for any reason, it hands its waiting actors, in order, to its keeper ({@link Orphans}), which
 * passes them to a new gate.
 */
public final class BudgetGate {

  private BudgetGate() {}

  /**
   * Tells the gate who takes its waiting actors if it stops; sent by the registry right after it
   * started the gate.
   */
  public record KeptBy(ActorRef<Orphans> keeper) implements Command {}

  /** The actors a stopping gate leaves behind, in their order. */
  public record Orphans(RestartBudget budget, ActorRef<Command> gate, List<Acquire> waiting) {}

  /** The gate's clock: a fixed-rate timer at the tick (package-private so that tests may stall it). */
  enum Tick implements Command {
    INSTANCE
  }

  /** The keys of the clock's two timers. */
  private enum Clock {
    ODD,
    EVEN
  }

  /**
   * The release timer: fixed-delay at the tick, so never two firings closer than a tick in real
   * time (package-private so that tests may send it).
   */
  enum Release implements Command {
    INSTANCE
  }

  /**
   * A lease's validity has passed with no newer lease (a single timer, restarted by each lease), so
   * that a gate that does not tick (idle) also falls back when its learner is gone.
   */
  private enum LeaseExpired implements Command {
    INSTANCE
  }

  /**
   * The gate's behavior, starting with the share of {@code members} nodes: a full bucket of {@code
   * max(1, burst / members)} permits, refilled at {@code permits / members} per period. A cluster-wide
   * budget's gate starts with the membership it knows when it is created, so that a node never
   * starts with more than its share of the burst. A cluster-wide adaptive budget's gate grants
   * within the leases of the budget's learner ({@link LeasedLimiter}); a local adaptive budget's
   * controller learns from this node's outcomes.
   *
   * @param budget the budget it enforces
   * @param members how many nodes share the budget at the start; values below 1 count as 1
   * @return the behavior
   */
  public static Behavior<Command> create(RestartBudget budget, int members) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> new Gate(budget, Math.max(1, members), ctx, timers).behavior()));
  }

  /**
   * The gate's pacing tick: the scheduler's resolution ({@code pekko.scheduler.tick-duration}),
   * between 1 ms and 100 ms.
   *
   * @param config the actor system's configuration
   * @return the tick in nanoseconds
   */
  static long tickNanos(com.typesafe.config.Config config) {
    String path = "pekko.scheduler.tick-duration";
    long configured =
        config.hasPath(path) ? config.getDuration(path).toNanos() : TICK_DEFAULT_NANOS;
    return Math.min(100 * MILLI, Math.max(MILLI, configured));
  }

  private static final long MILLI = 1_000_000L;
  private static final long TICK_DEFAULT_NANOS = 10 * MILLI;

  private static final class Gate implements AdaptiveRateController.Listener {
    private final RestartBudget budget;
    private final ActorContext<Command> ctx;
    private final TimerScheduler<Command> timers;

    /** The waiting requests in arrival order, and the latest of each requester: O(1) to add, cancel, poll. */
    private final LinkedHashMap<Acquire, Acquire> queue = new LinkedHashMap<>();

    private final Map<ActorRef<Object>, Acquire> byRequester = new HashMap<>();

    /**
     * Recent grants whose actors have not reported their start, oldest first, for refunds and
     * starts; and recent grants whose actors have started, by start, for failures.
     */
    private final ArrayDeque<Granted> unstarted = new ArrayDeque<>();

    private final ArrayDeque<Granted> started = new ArrayDeque<>();

    private final Map<ActorRef<Object>, Granted> grantedTo = new HashMap<>();
    private final long tickNanos;
    private final Limiter limiter;
    private final GateClock clock;

    /** The clock's reading when the gate started (0 when it reads none). */
    private final long origin;

    /** The gate's time: the clock's since {@link #origin}, or the ticks counted. */
    private long now;

    /** Permits let go since the last firing of the release timer. */
    private long released;

    private ActorRef<Orphans> keeper;
    private boolean retiring;
    private double lastPublishedRate = Double.NaN;
    private Coordination lastCoordination;

    /** A grant at {@code at}; its actor started at {@code startedAt}, or not yet ({@link #NOT_STARTED}). */
    private record Granted(ActorRef<Object> requester, long at, long startedAt) {
      boolean hasStarted() {
        return startedAt != NOT_STARTED;
      }
    }

    private static final long NOT_STARTED = Long.MIN_VALUE;

    Gate(
        RestartBudget budget,
        int members,
        ActorContext<Command> ctx,
        TimerScheduler<Command> timers) {
      this.budget = budget;
      this.ctx = ctx;
      this.timers = timers;
      this.tickNanos = tickNanos(ctx.getSystem().settings().config());
      this.clock = GateClock.of(ctx.getSystem());
      this.origin = clock.reads() ? clock.nanoTime() : 0;
      this.limiter = limiter(budget, members, tickNanos, clock.reads(), this);
    }

    /** On a clock, sets {@link #now} to its reading; counting ticks, only {@link #onTick} moves it. */
    private void readClock() {
      if (clock.reads()) {
        now = Math.max(now, clock.nanoTime() - origin);
      }
    }

    /** The limiter of the budget's kind. */
    private static Limiter limiter(
        RestartBudget budget,
        int members,
        long tickNanos,
        boolean onClock,
        AdaptiveRateController.Listener listener) {
      if (budget instanceof RestartBudget.Adaptive adaptive) {
        return adaptive.isClusterWide()
            ? new LeasedLimiter(adaptive, members, tickNanos, onClock, listener)
            : new AdaptiveLimiter(adaptive, tickNanos, onClock, listener);
      }
      return new FixedLimiter((RestartBudget.Fixed) budget, members, tickNanos, onClock);
    }

    Behavior<Command> behavior() {
      return Behaviors.receive(Command.class)
          .onMessage(Acquire.class, this::onAcquire)
          .onMessage(Cancel.class, this::onCancel)
          .onMessage(Failed.class, this::onFailed)
          .onMessage(Started.class, this::onStarted)
          .onMessage(Waiting.class, w -> reply(w.replyTo(), queue.size()))
          .onMessage(Query.class, q -> reply(q.replyTo(), status()))
          .onMessageEquals(Tick.INSTANCE, this::onTick)
          .onMessageEquals(Release.INSTANCE, this::onRelease)
          .onMessage(SetShare.class, this::onSetShare)
          .onMessage(GrantLease.class, this::onLease)
          .onMessageEquals(
              LeaseExpired.INSTANCE,
              () -> {
                readClock();
                limiter.expireLease(now);
                publishCoordination();
                grantWhilePossible();
                return stopIfRetired();
              })
          .onMessage(
              CollectReport.class,
              c -> {
                readClock();
                limiter.report(now, queue.size()).ifPresent(c.replyTo()::tell);
                return Behaviors.same();
              })
          .onMessage(
              KeptBy.class,
              k -> {
                keeper = k.keeper();
                return Behaviors.same();
              })
          .onMessage(
              Retire.class,
              r -> {
                retiring = true;
                return stopIfRetired();
              })
          .onSignal(PostStop.class, s -> onPostStop())
          .build();
    }

    private static <R> Behavior<Command> reply(ActorRef<R> to, R answer) {
      to.tell(answer);
      return Behaviors.same();
    }

    private Status status() {
      return new Status(
          budget.getName(),
          limiter.state(),
          limiter.rate(),
          limiter.goodput(),
          queue.size(),
          limiter.coordination());
    }

    private Behavior<Command> onSetShare(SetShare setShare) {
      readClock();
      limiter.setShare(Math.max(1, setShare.members()));
      grantWhilePossible();
      return Behaviors.same();
    }

    /** A lease from the budget's learner; only a cluster-wide adaptive budget's limiter takes it. */
    private Behavior<Command> onLease(GrantLease lease) {
      readClock();
      limiter.onLease(lease.lease(), now);
      timers.startSingleTimer(
          LeaseExpired.INSTANCE, LeaseExpired.INSTANCE, lease.lease().validFor());
      publishCoordination();
      grantWhilePossible();
      return Behaviors.same();
    }

    /**
     * Publishes a {@link BudgetEvent.CoordinationChanged} when this node took or lost a lease, or
     * took or lost the probe.
     */
    private void publishCoordination() {
      Optional<Coordination> c = limiter.coordination();
      if (c.isEmpty()) {
        return;
      }
      Coordination now = c.get();
      if (lastCoordination == null
          || lastCoordination.coordinated() != now.coordinated()
          || lastCoordination.prober() != now.prober()) {
        lastCoordination = now;
        debug(
            "Restart budget [{}]: {}{}",
            budget.getName(),
            now.coordinated() ? "on the learner's lease" : "on its own fallback",
            now.prober() ? ", probing for the cluster" : "");
        publish(
            new BudgetEvent.CoordinationChanged(
                budget.getName(), now.coordinated(), now.prober(), now.inView()));
      }
    }

    private Behavior<Command> onAcquire(Acquire acquire) {
      readClock();
      queue.put(acquire, acquire);
      byRequester.put(acquire.requester(), acquire);
      grantWhilePossible();
      return Behaviors.same();
    }

    private Behavior<Command> onCancel(Cancel cancel) {
      readClock();
      Acquire waiting = byRequester.remove(cancel.requester());
      if (waiting == null || queue.remove(waiting) == null) {
        Granted granted = grantedTo.remove(cancel.requester());
        if (granted != null && !granted.hasStarted()) {
          // the permit reached an actor that had stopped: pass it on
          Acquire next = poll();
          if (next != null) {
            grant(next, granted.at());
          } else {
            limiter.giveBack(now);
            released = Math.max(0, released - 1); // it is not one of those let go
          }
        }
      }
      return stopIfRetired();
    }

    private Behavior<Command> onFailed(Failed failed) {
      readClock();
      Granted granted = grantedTo.remove(failed.requester());
      if (granted == null) {
        limiter.onFailure(now, AdaptiveRateController.NOT_GRANTED);
      } else if (granted.hasStarted()) {
        limiter.onFailure(now, granted.startedAt());
      } else { // failed while it started: a restart whose outcome is known
        limiter.onStarted(now, granted.at());
        limiter.onFailure(now, now);
      }
      grantWhilePossible();
      return Behaviors.same();
    }

    /** The restarted actor of a grant has started: its probation starts now. */
    private Behavior<Command> onStarted(Started started) {
      Granted granted = grantedTo.get(started.requester());
      if (granted != null && !granted.hasStarted()) {
        readClock();
        Granted running = new Granted(granted.requester(), granted.at(), now);
        grantedTo.put(running.requester(), running);
        this.started.addLast(running);
        limiter.onStarted(now, granted.at());
        grantWhilePossible();
      }
      return Behaviors.same();
    }

    private Behavior<Command> onTick() {
      if (clock.reads()) {
        readClock();
      } else {
        now += tickNanos;
      }
      forgetBefore(unstarted, now - limiter.keepUnstartedNanos(), Granted::at);
      forgetBefore(started, now - limiter.keepStartedNanos(), Granted::startedAt);
      limiter.onTick(now, queue.size());
      publishCoordination();
      grantWhilePossible();
      return stopIfRetired();
    }

    /** Forgets the grants of {@code grants} (oldest first) whose time is before {@code since}. */
    private void forgetBefore(
        ArrayDeque<Granted> grants, long since, ToLongFunction<Granted> time) {
      while (!grants.isEmpty() && time.applyAsLong(grants.peekFirst()) < since) {
        Granted old = grants.pollFirst();
        grantedTo.remove(old.requester(), old);
      }
    }

    /** The release timer fired: a tick or more of real time since the last firing. */
    private Behavior<Command> onRelease() {
      readClock();
      released = 0;
      grantWhilePossible();
      return stopIfRetired();
    }

    private Acquire poll() {
      Iterator<Acquire> it = queue.values().iterator();
      if (!it.hasNext()) {
        return null;
      }
      Acquire head = it.next();
      it.remove();
      byRequester.remove(head.requester(), head);
      return head;
    }

    private void grantWhilePossible() {
      // on a clock the pacer bounds every interval of real time: no release limit
      long perRelease = clock.reads() ? Long.MAX_VALUE : limiter.perRelease();
      while (!queue.isEmpty() && released < perRelease && limiter.tryAcquire(now)) {
        grant(poll(), now);
        released++;
      }
      if (!queue.isEmpty() && released >= perRelease) {
        // ticks came back to back since the last release (a stall): what they offer is dropped
        limiter.drop(now);
      }
      boolean idle = queue.isEmpty() && noGrants() && limiter.isIdle(now);
      if (idle) {
        timers.cancel(Clock.ODD);
        timers.cancel(Clock.EVEN);
        timers.cancel(Release.INSTANCE);
        released = 0;
      } else if (!timers.isTimerActive(Clock.ODD)) {
        // two fixed-rate timers of two ticks, one tick apart: one at the tick fires in pairs
        Duration tick = Duration.ofNanos(tickNanos);
        Duration twoTicks = tick.multipliedBy(2);
        timers.startTimerAtFixedRate(Clock.ODD, Tick.INSTANCE, tick, twoTicks);
        timers.startTimerAtFixedRate(Clock.EVEN, Tick.INSTANCE, twoTicks, twoTicks);
        if (!clock.reads()) {
          timers.startTimerWithFixedDelay(Release.INSTANCE, Release.INSTANCE, tick);
        }
      }
    }

    private void grant(Acquire acquire, long at) {
      Granted granted = new Granted(acquire.requester(), at, NOT_STARTED);
      unstarted.addLast(granted);
      grantedTo.put(acquire.requester(), granted);
      acquire.requester().tell(acquire.grant());
    }

    private boolean noGrants() {
      return unstarted.isEmpty() && started.isEmpty();
    }

    private Behavior<Command> stopIfRetired() {
      if (retiring && queue.isEmpty() && noGrants()) {
        return Behaviors.stopped();
      }
      return Behaviors.same();
    }

    private Behavior<Command> onPostStop() {
      if (!queue.isEmpty() && keeper != null) {
        keeper.tell(new Orphans(budget, ctx.getSelf(), new ArrayList<>(queue.values())));
      }
      return Behaviors.same();
    }

    // ------------------------------------------------------------ controller events

    @Override
    public void stateChanged(State from, State to, Reason reason, long nowNanos) {
      debug("Restart budget [{}]: {} -> {} ({})", budget.getName(), from, to, reason);
      publish(new BudgetEvent.StateChanged(budget.getName(), from, to, reason));
    }

    @Override
    public void rateChanged(double from, double to, double goodput, Reason reason, long nowNanos) {
      boolean growth = reason == Reason.SLOW_START || reason == Reason.GROWTH;
      // growth changes the rate every slice: publish it when it has grown by a quarter since
      // last told
      if (growth && !Double.isNaN(lastPublishedRate) && to < lastPublishedRate * 1.25) {
        return;
      }
      lastPublishedRate = to;
      debug(
          "Restart budget [{}]: rate {} -> {} per second ({}, measured goodput {} per second)",
          budget.getName(),
          round(from),
          round(to),
          reason,
          round(goodput));
      publish(new BudgetEvent.RateChanged(budget.getName(), from, to, goodput, reason));
    }

    @Override
    public void probe(int probes, long nowNanos) {
      debug("Restart budget [{}]: probe {} while holding", budget.getName(), probes);
      publish(new BudgetEvent.Probe(budget.getName(), probes));
    }

    /** A DEBUG line about the budget, with the gate's path in {@code pekkoSource}. */
    private void debug(String format, Object... args) {
      if (SupervisorLog.BUDGET.isDebugEnabled()) {
        String path = ctx.getSelf().path().toString();
        SupervisorLog.write(SupervisorLog.BUDGET, Level.DEBUG, null, path, format, args);
      }
    }

    private void publish(BudgetEvent event) {
      ctx.getSystem().eventStream().tell(new EventStream.Publish<>(event));
    }

    /** One decimal for the log; infinity (no limit) and NaN (no goodput yet) as they are. */
    private static double round(double v) {
      return Double.isFinite(v) ? Math.round(v * 10) / 10.0 : v;
    }
  }
}
