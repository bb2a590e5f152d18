package dev.supervision.backoff.testkit;

import java.util.List;
import java.util.Objects;
import org.apache.pekko.actor.testkit.typed.Effect;
import org.apache.pekko.actor.testkit.typed.javadsl.BehaviorTestKit;
import org.apache.pekko.actor.typed.Signal;

/**
 * Drives a supervised behavior in Pekko's synchronous {@link BehaviorTestKit}, where no time passes
 * and no scheduler runs. The supervisor schedules its restart (and its reset) as a tick to itself
 * through {@code ActorContext.scheduleOnce}, which the kit records as an {@link Effect.Scheduled}
 * whose {@link Effect.Scheduled#duration()} is the drawn delay; nothing fires it. {@link
 * #fire(BehaviorTestKit, Effect.Scheduled)} delivers the tick the way an actor would: as a signal.
 * Delivered with {@code run} instead, the tick is taken for a message, stashed during the backoff,
 * and later handed to the restarted child (which then fails on it).
 *
 * <pre>{@code
 * BehaviorTestKit<String> kit = BehaviorTestKit.create(BackoffSupervisor.wrap(child, policy));
 * kit.run("fail");
 * Effect.Scheduled<?> restart = BackoffEffects.expectTick(kit); // restart.duration(): the delay
 * BackoffEffects.fire(kit, restart);                             // restarts, replays the stash
 * }</pre>
 *
 * <p>What does not work there: policies with a restart budget (the kit's actor system cannot
 * register the budgets' extension, so the actor fails to start), and restarts after a failure of an
 * actor with children (the restart waits for their {@code Terminated}, which the kit never sends).
 * Use {@link BackoffProbe} under {@code ManualTime} for those.
 */
public final class BackoffEffects {

  private BackoffEffects() {}

  /**
   * Takes all effects recorded so far and returns the one supervisor tick among them: a {@link
   * Effect.Scheduled} of a signal to the actor itself (a restart after a failure, a reset after a
   * restart). The other effects are discarded.
   *
   * @param kit the kit running a {@code BackoffSupervisor.wrap(...)} behavior
   * @return the tick's effect; its {@code duration()} is the delay the supervisor drew
   * @throws AssertionError if there is no tick, or more than one
   */
  public static Effect.Scheduled<?> expectTick(BehaviorTestKit<?> kit) {
    Objects.requireNonNull(kit, "kit");
    List<Effect> effects = kit.getAllEffects();
    List<Effect.Scheduled<?>> ticks =
        effects.stream()
            .filter(
                e ->
                    e instanceof Effect.Scheduled<?> s
                        && s.message() instanceof Signal
                        && s.target().equals(kit.getRef()))
            .<Effect.Scheduled<?>>map(e -> (Effect.Scheduled<?>) e)
            .toList();
    if (ticks.size() != 1) {
      throw new AssertionError(
          "expected one scheduled tick of the backoff supervisor of ["
              + kit.getRef().path()
              + "], but the effects were "
              + effects);
    }
    return ticks.get(0);
  }

  /**
   * Delivers a tick returned by {@link #expectTick(BehaviorTestKit)} as the scheduler would have,
   * as a signal: a restart tick restarts the child and replays the stash, a reset tick resets the
   * count.
   *
   * @param kit the kit
   * @param tick the tick's effect
   * @throws IllegalArgumentException if {@code tick} does not carry a signal
   */
  public static void fire(BehaviorTestKit<?> kit, Effect.Scheduled<?> tick) {
    Objects.requireNonNull(kit, "kit");
    if (!(Objects.requireNonNull(tick, "tick").message() instanceof Signal signal)) {
      throw new IllegalArgumentException(
          "tick must carry a supervisor's signal but carried " + tick.message());
    }
    kit.signal(signal);
  }
}
