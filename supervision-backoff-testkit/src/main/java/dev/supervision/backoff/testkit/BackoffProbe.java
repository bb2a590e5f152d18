package dev.supervision.backoff.testkit;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.testkit.ExplicitlyTriggeredScheduler;

/**
 * Receives the {@link BackoffEvent}s of supervised actors and lets a test expect them one by one.
 * Attach it to the actors under test in one of two ways:
 *
 * <ul>
 *   <li>{@link #listener()}: add it to the policy ({@code policy.withListener(probe.listener())}).
 *       Events are recorded synchronously, on the supervised actor's thread, when they happen.
 *   <li>{@link #subscribeToEventStream()}: for a policy you cannot change in the test but that
 *       publishes its events ({@link BackoffPolicy#withEventStreamPublishing(boolean)}, or {@code
 *       publish-events = on} in the configuration a policy is read from). Events of every such
 *       actor of the actor system arrive, through one more actor.
 * </ul>
 *
 * <p>Each {@code expectX()} takes the next event (of any actor) and fails with an {@link
 * AssertionError} if it is not an {@code X}, or if none arrives within the test kit's {@code
 * pekko.actor.testkit.typed.single-expect-default} (3 s unless configured). Each {@code
 * expectX(actor)} takes the next event of that actor and leaves the events of other actors for later
 * expectations, so one probe can serve several actors. A failure message names the actor, what was
 * expected, and what arrived instead (or the last events it took, if nothing arrived).
 *
 * <p>Under {@link ManualTime}, {@link #advanceToRestart(ManualTime)} moves the clock exactly to the
 * restart announced by the last {@link #expectRestartScheduled()} and proves that it did not happen
 * one millisecond earlier.
 *
 * <p>Events are recorded from any thread; the {@code expect} methods and {@code advanceToRestart}
 * are meant to be called from the test's thread.
 */
public final class BackoffProbe {

  /** An event and the manual clock's reading (in ms) when the probe received it. */
  private record Stamped(BackoffEvent event, long clockMs) {}

  private static final int HISTORY = 5;

  private final ActorTestKit kit;
  private final ExplicitlyTriggeredScheduler manualClock; // null if the kit does not use ManualTime
  private final Duration timeout;
  private final BackoffListener listener = this::record;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition(); // signalled when an event is recorded
  private final List<Stamped> pending = new ArrayList<>(); // guarded by lock
  private final Deque<BackoffEvent> taken = new ArrayDeque<>(); // test thread
  private Stamped lastScheduled; // test thread

  private BackoffProbe(ActorTestKit kit) {
    this.kit = kit;
    Scheduler scheduler = Adapter.toClassic(kit.system()).scheduler();
    this.manualClock = scheduler instanceof ExplicitlyTriggeredScheduler manual ? manual : null;
    this.timeout = Duration.ofNanos(kit.testKitSettings().SingleExpectDefaultTimeout().toNanos());
  }

  /**
   * A new probe for actors of {@code kit}'s actor system. It receives nothing until it is attached
   * with {@link #listener()} or {@link #subscribeToEventStream()}.
   *
   * @param kit the test kit; {@link #advanceToRestart(ManualTime)} needs one created with {@link
   *     ManualTime#config()}
   * @return the probe
   * @throws NullPointerException if {@code kit} is {@code null}
   */
  public static BackoffProbe create(ActorTestKit kit) {
    return new BackoffProbe(Objects.requireNonNull(kit, "kit"));
  }

  /**
   * The listener that feeds this probe; add it to the policy of the actors under test with {@link
   * BackoffPolicy#withListener(BackoffListener)}. Thread-safe; the same instance every time.
   *
   * @return the listener
   */
  public BackoffListener listener() {
    return listener;
  }

  /**
   * Also receives the events that policies publish on the actor system's event stream, so that a
   * test can observe an actor whose policy it cannot add a listener to. Only policies with event
   * stream publishing on publish. Do not combine with {@link #listener()} on the same actor: each
   * event would arrive twice.
   *
   * @return this probe
   */
  public BackoffProbe subscribeToEventStream() {
    ActorRef<BackoffEvent> forwarder =
        kit.spawn(
            Behaviors.receiveMessage(
                (BackoffEvent event) -> {
                  record(event);
                  return Behaviors.same();
                }));
    // the subscription is enqueued at the event stream before the test can make anything fail, so
    // no event published after this call is missed
    kit.system().eventStream().tell(new EventStream.Subscribe<>(BackoffEvent.class, forwarder));
    return this;
  }

  private void record(BackoffEvent event) {
    Stamped stamped = new Stamped(event, manualClock == null ? -1 : manualClock.currentTimeMs());
    lock.lock();
    try {
      pending.add(stamped);
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Expects a failure to be handled: the next event is a {@link BackoffEvent.RestartScheduled}.
   * When it returns, the failed behavior has had {@code PreRestart} and the restart is on the
   * scheduler's clock, so the test may advance time.
   *
   * @return the event, with the attempt, the drawn delay and the cause
   * @throws AssertionError if the next event is another one, or none arrives in time
   */
  public BackoffEvent.RestartScheduled expectRestartScheduled() {
    return expectRestartScheduled(null);
  }

  /**
   * As {@link #expectRestartScheduled()}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, or none arrives in
   *     time
   */
  public BackoffEvent.RestartScheduled expectRestartScheduled(ActorRef<?> actor) {
    Stamped stamped = expect(BackoffEvent.RestartScheduled.class, actor);
    lastScheduled = stamped;
    return (BackoffEvent.RestartScheduled) stamped.event();
  }

  /**
   * Expects a stop of the child to be handled under {@code withRestartOnStop(true)}: the next event
   * is a {@link BackoffEvent.RestartScheduled} whose {@link
   * BackoffEvent.RestartScheduled#afterStop()} is {@code true}. As {@link #expectRestartScheduled()},
   * it allows one {@link #advanceToRestart(ManualTime)}.
   *
   * @return the event
   * @throws AssertionError if the next event is another one, a restart after a failure, or none
   *     arrives in time
   */
  public BackoffEvent.RestartScheduled expectRestartScheduledAfterStop() {
    return expectRestartScheduledAfterStop(null);
  }

  /**
   * As {@link #expectRestartScheduledAfterStop()}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, a restart after a
   *     failure, or none arrives in time
   */
  public BackoffEvent.RestartScheduled expectRestartScheduledAfterStop(ActorRef<?> actor) {
    BackoffEvent.RestartScheduled event = expectRestartScheduled(actor);
    if (!event.afterStop()) {
      throw new AssertionError(
          "expected a restart after a stop of the child " + of(actor) + ", but got " + event);
    }
    return event;
  }

  /**
   * Expects the supervisor to stop the actor for {@code reason}: the next event is a {@link
   * BackoffEvent.GaveUp} with that reason (for example {@link BackoffEvent.Reason#INNER_STOP}, for
   * an inner {@code SupervisorStrategy.stop()}).
   *
   * @param reason the expected reason
   * @return the event
   * @throws AssertionError if the next event is another one, has another reason, or none arrives
   *     in time
   */
  public BackoffEvent.GaveUp expectGaveUp(BackoffEvent.Reason reason) {
    Objects.requireNonNull(reason, "reason");
    BackoffEvent.GaveUp event = expectGaveUp();
    if (event.reason() != reason) {
      throw new AssertionError("expected GaveUp with reason " + reason + ", but got " + event);
    }
    return event;
  }

  /**
   * Expects the next event to be a {@link BackoffEvent.Restarted}: the behavior started again.
   *
   * @return the event
   * @throws AssertionError if the next event is another one, or none arrives in time
   */
  public BackoffEvent.Restarted expectRestarted() {
    return expectEvent(BackoffEvent.Restarted.class);
  }

  /**
   * As {@link #expectRestarted()}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, or none arrives in
   *     time
   */
  public BackoffEvent.Restarted expectRestarted(ActorRef<?> actor) {
    return expectEvent(actor, BackoffEvent.Restarted.class);
  }

  /**
   * Expects the next event to be a {@link BackoffEvent.BackoffReset}: the actor ran {@link
   * BackoffPolicy#getResetAfter()} without failing (advance the manual clock by that much first).
   *
   * @return the event
   * @throws AssertionError if the next event is another one, or none arrives in time
   */
  public BackoffEvent.BackoffReset expectReset() {
    return expectEvent(BackoffEvent.BackoffReset.class);
  }

  /**
   * As {@link #expectReset()}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, or none arrives in
   *     time
   */
  public BackoffEvent.BackoffReset expectReset(ActorRef<?> actor) {
    return expectEvent(actor, BackoffEvent.BackoffReset.class);
  }

  /**
   * Expects the next event to be a {@link BackoffEvent.GaveUp}: the supervisor stopped the actor.
   *
   * @return the event, with the reason
   * @throws AssertionError if the next event is another one, or none arrives in time
   */
  public BackoffEvent.GaveUp expectGaveUp() {
    return expectEvent(BackoffEvent.GaveUp.class);
  }

  /**
   * As {@link #expectGaveUp()}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, or none arrives in
   *     time
   */
  public BackoffEvent.GaveUp expectGaveUp(ActorRef<?> actor) {
    return expectEvent(actor, BackoffEvent.GaveUp.class);
  }

  /**
   * Expects the next event to be a {@link BackoffEvent.WaitingForPermit}: the backoff delay has
   * passed and the actor asks its restart budget for a permit.
   *
   * @return the event, with the budget's name
   * @throws AssertionError if the next event is another one, or none arrives in time
   */
  public BackoffEvent.WaitingForPermit expectWaitingForPermit() {
    return expectEvent(BackoffEvent.WaitingForPermit.class);
  }

  /**
   * As {@link #expectWaitingForPermit()}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, or none arrives in
   *     time
   */
  public BackoffEvent.WaitingForPermit expectWaitingForPermit(ActorRef<?> actor) {
    return expectEvent(actor, BackoffEvent.WaitingForPermit.class);
  }

  /**
   * Expects the next event to be a {@link BackoffEvent.PermitGranted}: the budget let the actor
   * restart (a {@link BackoffEvent.Restarted} follows at once).
   *
   * @return the event
   * @throws AssertionError if the next event is another one, or none arrives in time
   */
  public BackoffEvent.PermitGranted expectPermitGranted() {
    return expectEvent(BackoffEvent.PermitGranted.class);
  }

  /**
   * As {@link #expectPermitGranted()}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, or none arrives in
   *     time
   */
  public BackoffEvent.PermitGranted expectPermitGranted(ActorRef<?> actor) {
    return expectEvent(actor, BackoffEvent.PermitGranted.class);
  }

  /**
   * Expects the next event to be of {@code type}; for events without a method of their own, such
   * as {@link BackoffEvent.StoppedDuringBackoff}.
   *
   * @param type the expected event type
   * @param <E> the event type
   * @return the event
   * @throws AssertionError if the next event is another one, or none arrives in time
   */
  public <E extends BackoffEvent> E expectEvent(Class<E> type) {
    return type.cast(expect(type, null).event());
  }

  /**
   * As {@link #expectEvent(Class)}, for the next event of {@code actor}.
   *
   * @param actor the supervised actor
   * @param type the expected event type
   * @param <E> the event type
   * @return the event
   * @throws AssertionError if the next event of {@code actor} is another one, or none arrives in
   *     time
   */
  public <E extends BackoffEvent> E expectEvent(ActorRef<?> actor, Class<E> type) {
    Objects.requireNonNull(actor, "actor");
    return type.cast(expect(type, actor).event());
  }

  /**
   * Expects no event of any actor for {@code duration} of real time (events already received and
   * not yet expected count too). Under {@link ManualTime}, advance the clock first: this waits in
   * real time so that a message already on its way has time to be handled.
   *
   * @param duration how long to wait
   * @throws AssertionError if an event arrives
   */
  public void expectNoEvent(Duration duration) {
    expectNoEvent(null, duration);
  }

  /**
   * As {@link #expectNoEvent(Duration)}, for events of {@code actor}; events of other actors are
   * kept for later expectations.
   *
   * @param actor the supervised actor
   * @param duration how long to wait
   * @throws AssertionError if an event of {@code actor} arrives
   */
  public void expectNoEvent(ActorRef<?> actor, Duration duration) {
    Objects.requireNonNull(duration, "duration");
    Stamped seen = take(actor, duration);
    if (seen != null) {
      throw new AssertionError(
          "expected no event "
              + of(actor)
              + " for "
              + duration.toMillis()
              + " ms, but got "
              + seen.event());
    }
  }

  /**
   * Moves the manual clock exactly to the restart announced by the last {@link
   * #expectRestartScheduled()}, and proves that the restart did not happen one millisecond earlier.
   * In steps:
   *
   * <ol>
   *   <li>Checks that a {@code RestartScheduled} was expected: the failure has been handled, so the
   *       restart is on the clock (moving the clock before that would make it late).
   *   <li>Advances the clock to 1 ms before the restart is due ({@code delay} counts in whole
   *       milliseconds, as the manual scheduler does).
   *   <li>Advances it by the last millisecond. {@code ManualTime} waits 100 ms of real time before
   *       it fires what is due, with the clock still 1 ms short: a restart that fired early would be
   *       handled then, and its event would carry the earlier clock reading.
   *   <li>Fails if any event of that actor was received before the clock reached the restart.
   * </ol>
   *
   * <p>The events that follow ({@code Restarted}, or {@code WaitingForPermit} under a budget) are
   * left for the test to expect. If the clock was moved since the failure was handled, only the
   * rest of the delay is advanced.
   *
   * @param time the manual time of the probe's actor system
   * @return the event whose restart the clock was moved to
   * @throws IllegalStateException if the kit does not use {@code ManualTime}, no restart was
   *     expected since the last call, or the clock is already at or past the restart
   * @throws AssertionError if the actor restarted (or had any event) before the restart was due
   */
  public BackoffEvent.RestartScheduled advanceToRestart(ManualTime time) {
    return advanceToRestart(time, Duration.ZERO);
  }

  /**
   * As {@link #advanceToRestart(ManualTime)}, and waits up to {@code window} of real time with the
   * clock 1 ms short of the restart, failing as soon as an event of the actor arrives in it. {@code
   * ManualTime}'s own 100 ms wait follows in any case; a longer window catches an early restart also
   * on a machine so loaded that the actor takes longer than that to handle it, and costs its length
   * on every call that passes.
   *
   * @param time the manual time of the probe's actor system
   * @param window how long to wait, in real time, before the last millisecond; may be zero
   * @return the event whose restart the clock was moved to
   * @throws IllegalStateException as {@link #advanceToRestart(ManualTime)}
   * @throws IllegalArgumentException if {@code window} is negative
   * @throws AssertionError if the actor restarted (or had any event) before the restart was due
   */
  public BackoffEvent.RestartScheduled advanceToRestart(ManualTime time, Duration window) {
    Objects.requireNonNull(time, "time");
    if (Objects.requireNonNull(window, "window").isNegative()) {
      throw new IllegalArgumentException("window must be >= 0 but was " + window);
    }
    if (manualClock == null) {
      throw new IllegalStateException(
          "advanceToRestart needs a test kit created with ManualTime.config(), but "
              + kit.system().name()
              + " uses "
              + Adapter.toClassic(kit.system()).scheduler());
    }
    Stamped scheduled = lastScheduled;
    if (scheduled == null) {
      throw new IllegalStateException(
          "no restart to advance to: call expectRestartScheduled() first (it proves that the failure"
              + " has been handled and the restart is on the clock; each one allows one advance)");
    }
    lastScheduled = null;
    BackoffEvent.RestartScheduled event = (BackoffEvent.RestartScheduled) scheduled.event();
    long due = scheduled.clockMs() + event.delay().toMillis();
    long now = manualClock.currentTimeMs();
    if (event.delay().toMillis() == 0 && now == due) {
      time.timePasses(Duration.ZERO); // under 1 ms: due now; there is no earlier millisecond
      return event;
    }
    if (now >= due) {
      throw new IllegalStateException(
          "the manual clock is at "
              + now
              + " ms, already at or past the restart of ["
              + event.actor().path()
              + "] due at "
              + due
              + " ms (scheduled at "
              + scheduled.clockMs()
              + " ms with a delay of "
              + event.delay()
              + "); move the clock with advanceToRestart only");
    }
    if (due - now > 1) {
      time.timePasses(Duration.ofMillis(due - now - 1));
    }
    failIfEarly(scheduled, due, window);
    time.timePasses(Duration.ofMillis(1));
    failIfEarly(scheduled, due, Duration.ZERO);
    return event;
  }

  /** Fails if an event of the actor came before {@code due}, waiting up to {@code window} for one. */
  private void failIfEarly(Stamped scheduled, long due, Duration window) {
    ActorRef<?> actor = scheduled.event().actor();
    long left = window.toNanos(); // awaitNanos says what is left: the probe reads no clock
    lock.lock();
    try {
      while (true) {
        failIfEarlyIn(pending, scheduled, due, actor);
        if (left <= 0) {
          return;
        }
        left = arrived.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while watching [" + actor.path() + "]", e);
    } finally {
      lock.unlock();
    }
  }

  private static void failIfEarlyIn(
      List<Stamped> pending, Stamped scheduled, long due, ActorRef<?> actor) {
    for (Stamped s : pending) {
      if (s.event().actor().equals(actor) && s.clockMs() < due) {
        throw new AssertionError(
            "["
                + actor.path()
                + "] did not wait for its restart: "
                + s.event()
                + " came with the manual clock at "
                + s.clockMs()
                + " ms, but the restart was due at "
                + due
                + " ms (scheduled at "
                + scheduled.clockMs()
                + " ms with a delay of "
                + ((BackoffEvent.RestartScheduled) scheduled.event()).delay()
                + ")");
      }
    }
  }

  private Stamped expect(Class<? extends BackoffEvent> type, ActorRef<?> actor) {
    Stamped next = take(actor, timeout);
    String expected =
        "expected "
            + type.getSimpleName()
            + " "
            + of(actor)
            + " within "
            + timeout.toMillis()
            + " ms";
    if (next == null) {
      List<BackoffEvent> others;
      lock.lock();
      try {
        others = pending.stream().map(Stamped::event).toList();
      } finally {
        lock.unlock();
      }
      throw new AssertionError(
          expected
              + ", but no event "
              + of(actor)
              + " arrived"
              + (actor == null ? "" : "; events of other actors meanwhile: " + others)
              + "; the last events taken "
              + of(actor)
              + ": "
              + history(actor));
    }
    if (!type.isInstance(next.event())) {
      throw new AssertionError(
          expected + ", but the next event " + of(actor) + " was " + next.event());
    }
    return next;
  }

  /** Takes the first event of {@code actor} (any actor if null), waiting up to {@code wait}. */
  private Stamped take(ActorRef<?> actor, Duration wait) {
    long left = wait.toNanos();
    lock.lock();
    try {
      while (true) {
        for (Iterator<Stamped> it = pending.iterator(); it.hasNext(); ) {
          Stamped s = it.next();
          if (actor == null || s.event().actor().equals(actor)) {
            it.remove();
            taken.addLast(s.event());
            if (taken.size() > HISTORY * 4) {
              taken.removeFirst();
            }
            return s;
          }
        }
        if (left <= 0) {
          return null;
        }
        left = arrived.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for an event " + of(actor), e);
    } finally {
      lock.unlock();
    }
  }

  private List<BackoffEvent> history(ActorRef<?> actor) {
    List<BackoffEvent> mine = new ArrayList<>();
    for (BackoffEvent e : taken) {
      if (actor == null || e.actor().equals(actor)) {
        mine.add(e);
      }
    }
    return mine.subList(Math.max(0, mine.size() - HISTORY), mine.size());
  }

  private static String of(ActorRef<?> actor) {
    return actor == null ? "of any actor" : "of [" + actor.path() + "]";
  }
}
