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
 * INTERNAL API: the gate actor of one {@link RestartBudget}: a FIFO queue of waiting actors, paced
 * by the {@link Limiter} of the budget's kind. While it has work it ticks at the scheduler's
 * resolution, on its {@link GateClock}'s time (so a late tick is seen as late), else counting its
 * ticks (so a test that steps {@code ManualTime} steps the gate exactly). Fixed-rate ticks, so that
 * rates do not drift slow.
 *
 * <p>Stalls: counting ticks, a fixed-rate timer catches up missed ticks back to back and their
 * permits would leave in a clump. So a fixed-delay release timer ({@link Release}), which does not
 * catch up, lets at most {@link Limiter#perRelease} permits go between two firings; beyond that the
 * limiter {@link Limiter#drop drops} them. On time the limit never binds; on a clock the pacer
 * bounds every interval itself and there is no release timer.
 *
 * <p>An adaptive budget's actors report failures ({@link Failed}) and starts ({@link Started}): a
 * restart's probation counts from its start, not from how many ticks the gate ran first. A permit
 * that comes back with a {@link Cancel} goes to the next waiter (or back to the pacer); a stopping
 * gate hands its waiting actors, in order, to its keeper ({@link Orphans}).
 */
public final class BudgetGate {

  private BudgetGate() {}

  /** Who takes the waiting actors if the gate stops; sent right after the gate started. */
  public record KeptBy(ActorRef<Orphans> keeper) implements Command {}

  /** The actors a stopping gate leaves behind, in their order. */
  public record Orphans(RestartBudget budget, ActorRef<Command> gate, List<Acquire> waiting) {}

  /** Package-private so that tests may stall it. */
  enum Tick implements Command {
    INSTANCE
  }

  private enum Clock {
    ODD,
    EVEN
  }

  /** Fixed-delay at the tick; package-private so that tests may send it. */
  enum Release implements Command {
    INSTANCE
  }

  /** The last lease ran out: an idle gate, which does not tick, falls back too. */
  private enum LeaseExpired implements Command {
    INSTANCE
  }

  /**
   * The gate, starting with the share of {@code members} nodes (below 1 counts as 1), so that a
   * node never starts with more than its share of the burst.
   */
  public static Behavior<Command> create(RestartBudget budget, int members) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> new Gate(budget, Math.max(1, members), ctx, timers).behavior()));
  }

  /** The scheduler's {@code tick-duration}, between 1 ms and 100 ms, in nanoseconds. */
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

    /** The waiting requests in order, and each requester's latest: O(1) to add, cancel, poll. */
    private final LinkedHashMap<Acquire, Acquire> queue = new LinkedHashMap<>();

    private final Map<ActorRef<Object>, Acquire> byRequester = new HashMap<>();

    /** Recent grants not yet started (for refunds), and started ones by start (for failures). */
    private final ArrayDeque<Granted> unstarted = new ArrayDeque<>();

    private final ArrayDeque<Granted> started = new ArrayDeque<>();
    private final Map<ActorRef<Object>, Granted> grantedTo = new HashMap<>();
    private final long tickNanos;
    private final Limiter limiter;
    private final GateClock clock;
    private final long origin; // the clock's reading at the start (0 counting ticks)
    private long now; // the clock's since origin, or the ticks counted
    private long released; // since the last release
    private ActorRef<Orphans> keeper;
    private boolean retiring;
    private double lastPublishedRate = Double.NaN;
    private Coordination lastCoordination;

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
      boolean onClock = clock.reads();
      if (!(budget instanceof RestartBudget.Adaptive adaptive)) {
        limiter = new FixedLimiter((RestartBudget.Fixed) budget, members, tickNanos, onClock);
      } else if (adaptive.isClusterWide()) {
        limiter = new LeasedLimiter(adaptive, members, tickNanos, onClock, this);
      } else {
        limiter = new AdaptiveLimiter(adaptive, tickNanos, onClock, this);
      }
    }

    private void readClock() {
      if (clock.reads()) {
        now = Math.max(now, clock.nanoTime() - origin);
      }
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

    private Behavior<Command> onLease(GrantLease lease) {
      readClock();
      limiter.onLease(lease.lease(), now);
      timers.startSingleTimer(
          LeaseExpired.INSTANCE, LeaseExpired.INSTANCE, lease.lease().validFor());
      publishCoordination();
      grantWhilePossible();
      return Behaviors.same();
    }

    /** When this node took or lost a lease or the probe. */
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

    private void forgetBefore(
        ArrayDeque<Granted> grants, long since, ToLongFunction<Granted> time) {
      while (!grants.isEmpty() && time.applyAsLong(grants.peekFirst()) < since) {
        Granted old = grants.pollFirst();
        grantedTo.remove(old.requester(), old);
      }
    }

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

    @Override
    public void stateChanged(State from, State to, Reason reason, long nowNanos) {
      debug("Restart budget [{}]: {} -> {} ({})", budget.getName(), from, to, reason);
      publish(new BudgetEvent.StateChanged(budget.getName(), from, to, reason));
    }

    @Override
    public void rateChanged(double from, double to, double goodput, Reason reason, long nowNanos) {
      boolean growth = reason == Reason.SLOW_START || reason == Reason.GROWTH;
      // growth changes the rate every slice: told only when up by a quarter
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

    private void debug(String format, Object... args) {
      if (SupervisorLog.BUDGET.isDebugEnabled()) {
        String path = ctx.getSelf().path().toString();
        SupervisorLog.write(SupervisorLog.BUDGET, Level.DEBUG, null, path, format, args);
      }
    }

    private void publish(BudgetEvent event) {
      ctx.getSystem().eventStream().tell(new EventStream.Publish<>(event));
    }

    private static double round(double v) {
      return Double.isFinite(v) ? Math.round(v * 10) / 10.0 : v;
    }
  }
}
