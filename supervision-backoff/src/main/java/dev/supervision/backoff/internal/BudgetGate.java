package dev.supervision.backoff.internal;

import dev.supervision.backoff.RestartBudget;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * INTERNAL API: the gate actor of one {@link RestartBudget}: a token bucket refilled by a Pekko
 * timer (so {@code ManualTime} drives it), with a FIFO queue of waiting actors. The refill timer runs
 * only while the bucket is not full; an idle budget costs nothing.
 *
 * <p>The refill period is cut into {@code k = min(permits, period / 100 ms)} equal slices (at least
 * one), each adding {@code permits / k} tokens. The refill timer runs with a fixed <em>delay</em>,
 * not a fixed rate: on a busy machine a fixed-rate timer catches up with missed ticks back to back,
 * which would grant more than {@code permits} in a period; with a fixed delay, ticks are never closer
 * than one slice, so a window of one period sees at most {@code permits} new tokens on top of the
 * {@code burst} the bucket may hold, and a slow machine can only lower the rate. The price is that
 * the scheduler's rounding of each delay (10 ms ticks by default) lowers the rate by up to about
 * 10 % in real time; under {@code ManualTime} it is exact.
 */
public final class BudgetGate {

  /** The shortest refill slice. */
  static final Duration MIN_SLICE = Duration.ofMillis(100);

  private BudgetGate() {}

  /** The gate's protocol. */
  public sealed interface Command {}

  /**
   * Asks for a permit; the gate sends {@code grant} to {@code requester} when it has one.
   *
   * @param requester the supervised actor
   * @param grant the signal to send back (it identifies the request to the requester)
   */
  public record Acquire(ActorRef<Object> requester, Signal grant) implements Command {}

  /**
   * Gives up the requester's place in the queue (it was stopped while waiting).
   *
   * @param requester the supervised actor
   */
  public record Cancel(ActorRef<Object> requester) implements Command {}

  /**
   * Asks how many actors wait.
   *
   * @param replyTo gets the count
   */
  public record Waiting(ActorRef<Integer> replyTo) implements Command {}

  /**
   * Sets the share of the budget this gate enforces: {@code 1/members} of the permits and of the
   * burst (at least one permit of capacity). Sent by a cluster-wide budget's membership watcher; a
   * local budget keeps {@code members = 1}.
   *
   * @param members how many nodes share the budget, {@code >= 1}
   */
  public record SetShare(int members) implements Command {}

  private enum Refill implements Command {
    TICK
  }

  /**
   * The gate's behavior.
   *
   * @param budget the budget it enforces
   * @return the behavior
   */
  public static Behavior<Command> create(RestartBudget budget) {
    return create(budget, 1);
  }

  /**
   * The gate's behavior, starting with the share of {@code members} nodes: a full bucket of {@code
   * max(1, burst / members)} permits, refilled at {@code permits / members} per period. A cluster-wide
   * budget's gate starts with the membership it knows when it is created, so that a node never
   * starts with more than its share of the burst.
   *
   * @param budget the budget it enforces
   * @param members how many nodes share the budget at the start; values below 1 count as 1
   * @return the behavior
   */
  public static Behavior<Command> create(RestartBudget budget, int members) {
    return Behaviors.withTimers(timers -> new Gate(budget, Math.max(1, members), timers).behavior());
  }

  private static final class Gate {
    private final TimerScheduler<Command> timers;
    private final RestartBudget budget;
    private final Duration slice;
    private final long slices;
    private double burst;
    private double tokensPerSlice;
    private final ArrayDeque<Acquire> queue = new ArrayDeque<>();
    private double tokens;

    Gate(RestartBudget budget, int members, TimerScheduler<Command> timers) {
      this.timers = timers;
      this.budget = budget;
      long periodNanos = budget.getPeriod().toNanos();
      this.slices = Math.max(1, Math.min(budget.getPermits(), periodNanos / MIN_SLICE.toNanos()));
      this.slice = Duration.ofNanos(periodNanos / slices);
      share(members);
      this.tokens = burst;
    }

    private void share(int members) {
      this.burst = Math.max(1.0, budget.getBurst() / (double) members);
      this.tokensPerSlice = budget.getPermits() / (double) slices / members;
    }

    private Behavior<Command> onSetShare(SetShare setShare) {
      share(Math.max(1, setShare.members()));
      tokens = Math.min(tokens, burst);
      grantWhilePossible();
      return Behaviors.same();
    }

    Behavior<Command> behavior() {
      return Behaviors.receive(Command.class)
          .onMessage(Acquire.class, this::onAcquire)
          .onMessage(Cancel.class, this::onCancel)
          .onMessage(Waiting.class, w -> {
            w.replyTo().tell(queue.size());
            return Behaviors.same();
          })
          .onMessageEquals(Refill.TICK, this::onRefill)
          .onMessage(SetShare.class, this::onSetShare)
          .build();
    }

    private Behavior<Command> onAcquire(Acquire acquire) {
      queue.add(acquire);
      grantWhilePossible();
      return Behaviors.same();
    }

    private Behavior<Command> onCancel(Cancel cancel) {
      for (Iterator<Acquire> it = queue.iterator(); it.hasNext(); ) {
        if (it.next().requester().equals(cancel.requester())) {
          it.remove();
        }
      }
      return Behaviors.same();
    }

    private Behavior<Command> onRefill() {
      tokens += tokensPerSlice; // may exceed the burst for a moment: waiting actors get the full rate
      grantWhilePossible();
      return Behaviors.same();
    }

    private void grantWhilePossible() {
      while (tokens >= 1.0 && !queue.isEmpty()) {
        tokens -= 1.0;
        Acquire next = queue.poll();
        next.requester().tell(next.grant());
      }
      tokens = Math.min(tokens, burst); // only what is left over is capped
      boolean full = tokens >= burst;
      if (full) {
        timers.cancel(Refill.TICK);
      } else if (!timers.isTimerActive(Refill.TICK)) {
        timers.startTimerWithFixedDelay(Refill.TICK, Refill.TICK, slice);
      }
    }
  }
}
