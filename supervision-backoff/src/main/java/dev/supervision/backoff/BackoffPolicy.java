package dev.supervision.backoff;

import com.typesafe.config.Config;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import dev.supervision.backoff.internal.policy.PolicyConfig;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.slf4j.event.Level;

/**
 * How a supervised actor is restarted: an immutable, validated, thread-safe value.
 *
 * <p>Create one with {@link #exponential(Duration, Duration)} and refine it with the {@code withX}
 * methods, each of which returns a new validated policy and leaves the receiver unchanged. The
 * restart delay of attempt {@code n} (1 for the first restart after a start or a reset) is
 * {@code jitter(min(maxBackoff, minBackoff * multiplier^(n-1)))}, lowered to {@code maxBackoff} if
 * the jitter returned more (a jitter that returns a negative delay or {@code null}, or throws, is
 * broken: that attempt gets full jitter on the same bound, see {@link Jitter}), and then raised to a
 * {@link RetryAfter} hint if the failure carries one.
 *
 * <p>Each {@code withX} method describes its setting and states its default; the library's {@code
 * docs/configuration.md} lists the settings with their configuration keys and these methods.
 *
 * <p>A policy can also be read from HOCON with {@link #fromConfig(Config, String)}, so that
 * operators can change it in {@code application.conf} without a rebuild.
 *
 * <p>Every setter throws {@link NullPointerException} naming the parameter for a {@code null}
 * argument and {@link IllegalArgumentException} naming the parameter and the rejected value for a
 * value outside its rule.
 */
public final class BackoffPolicy {

  /** The settings; never modified once the policy is made. */
  private final PolicySetting.Values values;

  private BackoffPolicy(PolicySetting.Values values) {
    this.values = values;
  }

  /** A copy of this policy with {@code setting} set to {@code value}, after the setting's rule. */
  private <T> BackoffPolicy with(PolicySetting<T> setting, T value) {
    return new BackoffPolicy(values.with(setting, value));
  }

  /**
   * An exponential backoff from {@code minBackoff} to {@code maxBackoff} with full jitter,
   * multiplier 2, unlimited restarts and the defaults that the {@code withX} methods state.
   *
   * @param minBackoff the bound of the first restart's delay; {@code > 0}
   * @param maxBackoff the hard cap of every delay; {@code >= minBackoff} and {@code <= 180 days}
   * @return a new policy
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if a duration is zero, negative or above 180 days, or if
   *     {@code maxBackoff < minBackoff}
   */
  public static BackoffPolicy exponential(Duration minBackoff, Duration maxBackoff) {
    return new BackoffPolicy(PolicySetting.exponential(minBackoff, maxBackoff));
  }

  /**
   * Reads a policy from the HOCON block at {@code path} in {@code root}, typically {@code
   * context.getSystem().settings().config()}:
   *
   * <pre>{@code
   * my-service.worker-backoff {
   *   min-backoff = 100ms
   *   max-backoff = 20s
   *   multiplier = 2.0
   *   jitter = full          # full | equal | decorrelated | none
   *   reset-after = 30s      # or auto: (min-backoff + max-backoff) / 2
   *   max-restarts = off     # or a number
   *   stash-capacity = auto  # or a number; auto: pekko.actor.typed.restart-stash-capacity
   *   restart-on = ["java.io.IOException"]
   * }
   * }</pre>
   *
   * <p>The keys are those of {@code supervision-backoff.default-policy} in the library's {@code
   * reference.conf}, one per setting that configuration can hold; the library's {@code
   * docs/configuration.md} lists them with their defaults, what each allows and the method of this
   * class that each stands for, whose documentation is the key's. A key the block leaves
   * out takes its value from {@code supervision-backoff.default-policy} in {@code root} (so an
   * application can change the defaults of all its policies), else from {@code reference.conf}.
   * Listeners, {@link #withStopOn(Predicate) a stop predicate} and custom jitters are code, not
   * configuration: add them to the returned policy. {@code stop-on} and {@code restart-on} are lists
   * of class names, loaded with the thread's context class loader.
   *
   * <p>{@code budget} names a {@link RestartBudget} whose limits are defined in {@code root} at
   * {@code supervision-backoff.budgets.<name>} ({@code permits}, {@code period}, optional {@code
   * burst} and {@code cluster-wide}), so that the policies of many actors can name one budget:
   *
   * <pre>{@code
   * supervision-backoff.budgets.orders-db { permits = 200, period = 1s }
   * my-service.worker-backoff.budget = orders-db
   * }</pre>
   *
   * @param root the whole config
   * @param path the path of the policy block in {@code root}, for example {@code
   *     "my-service.worker-backoff"}
   * @return a new policy
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if there is no block at {@code path} (or the path runs through
   *     a value that is not a block), the block or the application's defaults have a key that is
   *     not a setting, a value is not allowed, a class name is not found or not a {@code
   *     Throwable}, the budget it names is not defined or not valid, or {@code root} has unresolved
   *     substitutions where the policy is read; the message starts with the full path of the
   *     setting, then the value and what is allowed, for example {@code
   *     my-service.worker-backoff.jitter: "fulll" is not one of full, equal, decorrelated, none}
   */
  public static BackoffPolicy fromConfig(Config root, String path) {
    return new BackoffPolicy(
        PolicySetting.read(() -> PolicyConfig.policy(root, path, PolicySetting.ALLOWED), path));
  }

  /**
   * Reads a policy from a HOCON block whose path is not known, for example one obtained with {@code
   * config.getConfig("my-service.worker-backoff")}. As {@link #fromConfig(Config, String)}, except
   * that missing keys take their values from the library's {@code reference.conf} only, and that
   * error messages name the key relative to the block followed by where its value was written (file
   * and line), for example {@code jitter (application.conf @ file:/app/application.conf: 4):
   * "fulll" is not one of full, equal, decorrelated, none}. It cannot see {@code
   * supervision-backoff.budgets}, so a block that names a {@code budget} is rejected. Prefer the
   * two-argument form.
   *
   * @param config the policy block
   * @return a new policy
   * @throws NullPointerException if {@code config} is {@code null}
   * @throws IllegalArgumentException if the block has a key that is not a setting, a value is not
   *     allowed, it names a budget, or it has unresolved substitutions
   */
  public static BackoffPolicy fromConfig(Config config) {
    return new BackoffPolicy(
        PolicySetting.read(
            () -> PolicyConfig.policy(config, PolicySetting.ALLOWED), "the policy block"));
  }

  /**
   * Sets the factor by which the exponential bound grows from one attempt to the next. Default 2.0.
   *
   * @param multiplier a finite number {@code >= 1.0}; 1.0 gives a constant bound of {@code
   *     minBackoff}
   * @return a new policy
   * @throws IllegalArgumentException if {@code multiplier} is NaN, infinite or below 1.0
   */
  public BackoffPolicy withMultiplier(double multiplier) {
    return with(PolicySetting.MULTIPLIER, multiplier);
  }

  /**
   * Sets how the exponential bound is turned into a delay. Default {@link Jitter#full()}.
   *
   * @param jitter one of {@link Jitter#full()}, {@link Jitter#equal()}, {@link
   *     Jitter#decorrelated()}, {@link Jitter#none()} or a custom, thread-safe implementation
   * @return a new policy
   * @throws NullPointerException if {@code jitter} is {@code null}
   */
  public BackoffPolicy withJitter(Jitter jitter) {
    return with(PolicySetting.JITTER, jitter);
  }

  /**
   * Sets how long a restarted actor must run without failing before its restart count returns to
   * 0, so that the next failure's delay is drawn as for the first failure. Default {@code
   * (minBackoff + maxBackoff) / 2}, as Pekko.
   *
   * @param resetAfter {@code > 0} and {@code <= 180 days}
   * @return a new policy
   * @throws NullPointerException if {@code resetAfter} is {@code null}
   * @throws IllegalArgumentException if {@code resetAfter} is zero, negative or above 180 days
   */
  public BackoffPolicy withResetAfter(Duration resetAfter) {
    return with(PolicySetting.RESET_AFTER, resetAfter);
  }

  /**
   * Limits the number of restarts between resets: the failure that comes after {@code maxRestarts}
   * restarts stops the actor (its behavior gets {@code PostStop}, a watching parent sees it
   * terminate). Unlike Pekko's {@code withMaxRestarts}, 0 means what it says: stop on the first
   * failure. Default: unlimited.
   *
   * @param maxRestarts {@code >= 0}
   * @return a new policy
   * @throws IllegalArgumentException if {@code maxRestarts} is negative
   */
  public BackoffPolicy withMaxRestarts(int maxRestarts) {
    return with(PolicySetting.MAX_RESTARTS, maxRestarts);
  }

  /**
   * Removes the restart limit (the default).
   *
   * @return a new policy
   */
  public BackoffPolicy withUnlimitedRestarts() {
    return new BackoffPolicy(values.without(PolicySetting.MAX_RESTARTS));
  }

  /**
   * Sets how many messages (and signals) are kept while the actor waits for its restart. They are
   * delivered in order to the new incarnation; those that do not fit are published on the event
   * stream as {@code org.apache.pekko.actor.Dropped}. Without this call the capacity is unset and
   * each actor takes {@code pekko.actor.typed.restart-stash-capacity} from its actor system's
   * configuration (1000 unless the application changed it), as Pekko's own backoff does: that is
   * the default.
   *
   * @param stashCapacity {@code >= 0}; 0 drops every message that arrives during a backoff
   * @return a new policy
   * @throws IllegalArgumentException if {@code stashCapacity} is negative
   */
  public BackoffPolicy withStashCapacity(int stashCapacity) {
    return with(PolicySetting.STASH_CAPACITY, stashCapacity);
  }

  /**
   * Declares failures as permanent: a failure that is an instance of one of these types, or has one
   * in its cause chain, stops the actor at once, without a restart. Replaces the previous set;
   * default none. See {@link #isPermanent(Throwable)} for how stop rules and {@link
   * #withRestartOn(Class[])} combine.
   *
   * @param types the permanent failure types; may be empty to restart on every failure
   * @return a new policy
   * @throws NullPointerException if {@code types} or one of its elements is {@code null}
   */
  @SafeVarargs
  public final BackoffPolicy withStopOn(Class<? extends Throwable>... types) {
    return with(PolicySetting.STOP_ON, types == null ? null : Arrays.asList(types));
  }

  /**
   * Declares failures as permanent by a rule: a failure for which {@code stopOn} returns {@code
   * true}, or whose cause chain holds a throwable for which it does, stops the actor at once,
   * without a restart. Replaces the previous predicate; it works together with {@link
   * #withStopOn(Class[])} (either one matching is enough). Default none. See {@link #isPermanent(Throwable)} for
   * how stop rules and {@link #withRestartOn(Class[])} combine. Two policies are equal only if they
   * hold the same predicate instance.
   *
   * @param stopOn a thread-safe, side-effect-free predicate; it is called with each throwable of
   *     the chain, from the outermost, on the actor's thread
   * @return a new policy
   * @throws NullPointerException if {@code stopOn} is {@code null}
   */
  public BackoffPolicy withStopOn(Predicate<Throwable> stopOn) {
    return with(PolicySetting.STOP_ON_PREDICATE, stopOn);
  }

  /**
   * Declares which failures are transient: only a failure that is an instance of one of these
   * types, or has one in its cause chain, is restarted; any other failure stops the actor at once,
   * as Pekko's {@code Behaviors.supervise(b).onFailure(IOException.class, ...)} lets other failure
   * types through. A stop rule ({@link #withStopOn(Class[])}, {@link #withStopOn(Predicate)}) still
   * wins over this list. Replaces the previous list; an empty list (the default) restarts every
   * failure that no stop rule matches.
   *
   * @param types the transient failure types; may be empty to restart on every failure
   * @return a new policy
   * @throws NullPointerException if {@code types} or one of its elements is {@code null}
   */
  @SafeVarargs
  public final BackoffPolicy withRestartOn(Class<? extends Throwable>... types) {
    return with(PolicySetting.RESTART_ON, types == null ? null : Arrays.asList(types));
  }

  /**
   * Sets whether the children of a failed actor are stopped before it restarts (the default, as
   * Pekko). With {@code false} the children survive the restart and the restart does not wait for
   * them, as with Pekko's {@code restartWithBackoff(..).withStopChildren(false)}; the new
   * incarnation must then not spawn children under names that are still taken.
   *
   * @param stopChildren whether to stop the children on a restart
   * @return a new policy
   */
  public BackoffPolicy withStopChildren(boolean stopChildren) {
    return with(PolicySetting.STOP_CHILDREN, stopChildren);
  }

  /**
   * Sets whether a child that stops itself (returns {@code Behaviors.stopped()}: a connection it
   * served closed, a stream it ran completed, a job it gave up) is started again after a backoff,
   * as with classic {@code BackoffOpts.onStop}. Default {@code false}: the actor stops with its
   * child, as with Pekko's typed supervisors.
   *
   * <p>With {@code true} such a stop is handled like a failure: the behavior that stopped gets
   * {@code PostStop} (and the stopped behavior's callback runs), its children are stopped unless
   * {@link #withStopChildren(boolean)} keeps them, the stop is counted, the restart comes after the
   * schedule's next delay and asks the {@link #withBudget(RestartBudget) budget} for a permit, and
   * {@link #withMaxRestarts(int)} stops the actor for good (cleanly: a watching parent sees {@code
   * Terminated}). Events carry a {@link ChildStopped} as their cause, and {@link
   * BackoffEvent.RestartScheduled#afterStop()} is {@code true} (a {@code ChildStopped} the child
   * throws is a failure). Stop rules ({@link #withStopOn(Class[])}) and
   * {@code RetryAfter} hints do not apply to a stop, and an adaptive budget does not count it as a
   * failure of the resource. A stop is final, and the actor stops, if
   *
   * <ul>
   *   <li>it comes from outside: the parent's {@code ctx.stop(actor)}, a {@code PoisonPill} (Cluster
   *       Sharding's passivation and hand-off without a stop message use it), the actor system's
   *       shutdown; or
   *   <li>the child has received a message matching {@link #withFinalStopMessage(Predicate)}
   *       before (declare a sharding entity's stop message there).
   * </ul>
   *
   * @param restartOnStop whether to restart a child that stops itself
   * @return a new policy
   */
  public BackoffPolicy withRestartOnStop(boolean restartOnStop) {
    return with(PolicySetting.RESTART_ON_STOP, restartOnStop);
  }

  /**
   * Declares the messages after which a stop of the child is final under {@link
   * #withRestartOnStop(boolean)}, as classic {@code BackoffOpts.withFinalStopMessage}: once the
   * child has received a message for which {@code finalStopMessage} returns {@code true}, its next
   * stop stops the actor (even if it stops later, say after a persistent child has written its last
   * event). A matching message that arrives during a backoff stops the actor at once, without a
   * restart (its stash is published as {@code Dropped}). Without {@code withRestartOnStop(true)}
   * every stop is final and the predicate is not called. Default: none. Two policies are equal only
   * if they hold the same predicate instance.
   *
   * @param finalStopMessage a thread-safe, side-effect-free predicate, called on the actor's thread
   *     for every message while it is set and no matching message has arrived yet; one that throws
   *     counts as no match (one WARN line)
   * @return a new policy
   * @throws NullPointerException if {@code finalStopMessage} is {@code null}
   */
  public BackoffPolicy withFinalStopMessage(Predicate<Object> finalStopMessage) {
    return with(PolicySetting.FINAL_STOP_MESSAGE, finalStopMessage);
  }

  /**
   * Makes the child, not the clock, decide when the restart count starts over, as classic {@code
   * BackoffOpts.withManualReset}: the count is reset only when the child's behavior calls {@link
   * BackoffSupervisor#resetBackoff(org.apache.pekko.actor.typed.javadsl.ActorContext)} (for example
   * after its first successful query), and no longer after {@link #withResetAfter(Duration)}
   * without failing, which counts idle time as healthy. Default: off, the reset window resets.
   *
   * @return a new policy
   */
  public BackoffPolicy withManualReset() {
    return with(PolicySetting.MANUAL_RESET, true);
  }

  /**
   * Lets {@code handler} answer the messages that arrive while the actor waits for its restart,
   * instead of keeping their senders waiting on the stash (classic {@code BackoffOpts}'s {@code
   * withReplyWhileStopped} and {@code withHandlerWhileStopped}). It sees every message of a
   * backoff, in order; {@code true} means it answered the message, which is then not stashed;
   * {@code false} stashes it as without a handler. A handler that throws costs no restart and loses
   * no message: one WARN line, and the message is stashed. A running actor never calls it: the
   * handler is looked at only during a backoff. To tell the handler the time left, an actor of a
   * policy with a handler has one more timer on the scheduler while a backoff is pending (a fixed
   * rate of the delay / 16, at least 10 ms, cancelled when the backoff ends); an actor of a policy
   * without a handler has none. Default: none. Two policies are equal only if they hold the same
   * handler instance.
   *
   * @param handler a handler that does not block; see {@link BackoffHandler} for the {@code
   *     untilRestart} it is given
   * @return a new policy
   * @throws NullPointerException if {@code handler} is {@code null}
   */
  public BackoffPolicy withHandlerWhileBackingOff(BackoffHandler handler) {
    return with(PolicySetting.HANDLER_WHILE_BACKING_OFF, handler);
  }

  /**
   * Makes the delays reproducible: every actor draws from a generator seeded with this seed mixed
   * with the actor's path, so the same seed and the same actor path give the same schedule, while
   * different actors still get different delays (which is the point of jitter). Default: none, each
   * actor seeds its own generator when it first fails.
   *
   * @param seed any value
   * @return a new policy
   */
  public BackoffPolicy withRandomSeed(long seed) {
    return with(PolicySetting.RANDOM_SEED, seed);
  }

  /**
   * Limits how long a {@link RetryAfter} hint may delay a restart.
   *
   * @param maxRetryAfter {@code > 0} and {@code <= 180 days}; default 1 hour
   * @return a new policy
   * @throws NullPointerException if {@code maxRetryAfter} is {@code null}
   * @throws IllegalArgumentException if {@code maxRetryAfter} is zero, negative or above 180 days
   */
  public BackoffPolicy withMaxRetryAfter(Duration maxRetryAfter) {
    return with(PolicySetting.MAX_RETRY_AFTER, maxRetryAfter);
  }

  /**
   * Sets the level at which a failure that is restarted is logged (with its cause), through the
   * SLF4J logger {@code dev.supervision.backoff.BackoffSupervisor}.
   *
   * <p>Default WARN, where Pekko's backoff logs every failure at ERROR. This is deliberate: a
   * failure that is restarted with backoff has been handled, and an actor that keeps failing
   * against a resource that is down would otherwise fill an ERROR channel with one line per
   * attempt. ERROR is kept for what needs a person: an actor that stops (permanent failure or
   * {@code maxRestarts} reached) and, if set, the failures after {@link
   * #withCriticalLogLevel(Level, int)}'s count. {@code withLogLevel(Level.ERROR)} (or {@code
   * log-level = error} in configuration) gives Pekko's behaviour back.
   *
   * @param logLevel the level
   * @return a new policy
   * @throws NullPointerException if {@code logLevel} is {@code null}
   */
  public BackoffPolicy withLogLevel(Level logLevel) {
    return with(PolicySetting.LOG_LEVEL, logLevel);
  }

  /**
   * Logs at {@code criticalLogLevel} instead of {@link #getLogLevel()} once an actor has failed more
   * than {@code afterFailures} times in a row (without a reset), like Pekko's {@code
   * withCriticalLogLevel}. Default: ERROR, after {@code Integer.MAX_VALUE} failures (never).
   *
   * @param criticalLogLevel the level for the failures after the first {@code afterFailures}
   * @param afterFailures {@code >= 1}
   * @return a new policy
   * @throws NullPointerException if {@code criticalLogLevel} is {@code null}
   * @throws IllegalArgumentException if {@code afterFailures < 1}
   */
  public BackoffPolicy withCriticalLogLevel(Level criticalLogLevel, int afterFailures) {
    return new BackoffPolicy(
        values
            .with(PolicySetting.CRITICAL_LOG_LEVEL, criticalLogLevel)
            .with(PolicySetting.CRITICAL_LOG_LEVEL_AFTER, afterFailures));
  }

  /**
   * Turns the supervisor's own log lines on (the default) or off. Events are still reported.
   *
   * @param enabled whether to log
   * @return a new policy
   */
  public BackoffPolicy withLoggingEnabled(boolean enabled) {
    return with(PolicySetting.LOGGING_ENABLED, enabled);
  }

  /**
   * Sets whether the supervisor's failure lines are written for a herd rather than per actor. When
   * thousands of actors fail together (a shared database went down), one WARN line with a stack
   * trace per failure floods the log when operators most need to read it. Aggregated, each
   * restarted failure is logged at DEBUG only, and one line per cause (the failure's class) and
   * level is written per second for all actors of the actor system that aggregate: how many actors
   * failed how many times, the first failure's description and actor, and its stack trace when the
   * cause is new (not seen in the second before; while the episode lasts, counts only). The level of
   * that line is what the failure's own line would have had: {@link #withLogLevel(Level)}, or
   * {@link #withCriticalLogLevel(Level, int)}'s level for the failures after its count, and {@link
   * #withLoggingEnabled(boolean) withLoggingEnabled(false)} still silences everything. The lines
   * of actors that give up and stop (ERROR) are aggregated the same way, one line per reason and
   * cause, and so are the lines of children that stopped themselves under {@link
   * #withRestartOnStop(boolean)} (no stack trace); each actor's own line is then at DEBUG.
   *
   * <p>Default: on for a policy with a {@link #withBudget(RestartBudget) budget} (a group of actors
   * that fail together is what a budget is for), off for one without; this call sets it either way.
   * The second is counted by the actor system's scheduler, so {@code ManualTime} drives it.
   *
   * @param aggregated whether to aggregate
   * @return a new policy
   */
  public BackoffPolicy withAggregatedLogging(boolean aggregated) {
    return with(PolicySetting.AGGREGATED_LOGGING, aggregated);
  }

  /**
   * {@return whether a herd's lines are logged as a herd (see {@link
   * #withAggregatedLogging(boolean)}): the setting, or, if it was not set, whether the policy has a
   * budget}
   */
  public boolean isAggregatedLogging() {
    Boolean set = values.aggregatedLogging;
    return set != null ? set : values.budget != null;
  }

  /**
   * Adds a listener that receives the {@link BackoffEvent}s of every actor supervised with the new
   * policy. Listeners are called in the order they were added. Default: none.
   *
   * @param listener a thread-safe listener
   * @return a new policy
   * @throws NullPointerException if {@code listener} is {@code null}
   */
  public BackoffPolicy withListener(BackoffListener listener) {
    Check.nonNull(listener, "listener");
    List<BackoffListener> listeners = getListeners();
    List<BackoffListener> copy = new ArrayList<>(listeners.size() + 1);
    copy.addAll(listeners);
    copy.add(listener);
    return with(PolicySetting.LISTENERS, Collections.unmodifiableList(copy));
  }

  /**
   * Makes every actor of this policy ask {@code budget} for a permit before it restarts, once its
   * backoff delay has passed. Actors of one actor system whose policies name the same budget share
   * it. See {@link RestartBudget}. Default: none.
   *
   * @param budget the budget
   * @return a new policy
   * @throws NullPointerException if {@code budget} is {@code null}
   */
  public BackoffPolicy withBudget(RestartBudget budget) {
    return with(PolicySetting.BUDGET, budget);
  }

  /**
   * Removes the restart budget (the default).
   *
   * @return a new policy
   */
  public BackoffPolicy withoutBudget() {
    return new BackoffPolicy(values.without(PolicySetting.BUDGET));
  }

  /** {@return the budget that actors of this policy share, or empty (the default)} */
  public Optional<RestartBudget> getBudget() {
    return Optional.ofNullable(values.budget);
  }

  /**
   * Also publishes every {@link BackoffEvent} of every actor supervised with the new policy on the
   * actor system's event stream, so that any actor can subscribe to them:
   *
   * <pre>{@code
   * system.eventStream().tell(new EventStream.Subscribe<>(BackoffEvent.class, monitor));
   * }</pre>
   *
   * <p>Off by default. When off it costs nothing: events are built only when a listener or the
   * event stream wants them. When on, each event is one message to the event stream's actor, sent
   * only when a supervised actor fails, restarts, resets or stops; messages that the actor handles
   * without failing never pay for it. The event stream is local to one actor system (in a cluster,
   * each node sees the events of its own actors). Events hold the failure ({@code cause}), so a
   * subscriber that keeps them keeps the exceptions alive.
   *
   * @param enabled whether to publish
   * @return a new policy
   */
  public BackoffPolicy withEventStreamPublishing(boolean enabled) {
    return with(PolicySetting.EVENT_STREAM_PUBLISHING, enabled);
  }

  /**
   * The delays this policy gives to one actor: the delay before restart 1, 2, 3, ... (without
   * resets and without {@link RetryAfter} hints). The stream is infinite with unlimited restarts and
   * has {@link #getMaxRestarts()} elements otherwise. It is lazy and draws from {@code random} as it
   * is consumed, so it must be consumed on one thread at a time.
   *
   * @param random the source of the jitter's draws
   * @return the delays, each within {@code [0, maxBackoff]}
   * @throws NullPointerException if {@code random} is {@code null}
   */
  public Stream<Duration> delays(RandomGenerator random) {
    Check.nonNull(random, "random");
    DelaySchedule schedule =
        new DelaySchedule(getMinBackoff(), getMaxBackoff(), getMultiplier(), getJitter());
    Stream<Duration> all = Stream.generate(() -> Duration.ofNanos(schedule.nextDelayNanos(random)));
    OptionalInt maxRestarts = getMaxRestarts();
    return maxRestarts.isPresent() ? all.limit(maxRestarts.getAsInt()) : all;
  }

  /** {@return the bound of the first restart's delay} */
  public Duration getMinBackoff() {
    return values.minBackoff;
  }

  /** {@return the hard cap of every delay, except one raised by a {@link RetryAfter} hint} */
  public Duration getMaxBackoff() {
    return values.maxBackoff;
  }

  /** {@return the multiplier, {@code >= 1.0}; see {@link #withMultiplier(double)}} */
  public double getMultiplier() {
    return values.multiplier;
  }

  /** {@return the jitter; see {@link #withJitter(Jitter)}} */
  public Jitter getJitter() {
    return values.jitter;
  }

  /** {@return the reset window; see {@link #withResetAfter(Duration)}} */
  public Duration getResetAfter() {
    return values.resetAfter;
  }

  /** {@return the restart limit between resets, or empty for unlimited restarts} */
  public OptionalInt getMaxRestarts() {
    return values.maxRestarts == null ? OptionalInt.empty() : OptionalInt.of(values.maxRestarts);
  }

  /**
   * {@return the stash capacity set with {@link #withStashCapacity(int)} or {@code stash-capacity}
   * in configuration, or empty if it is left to the actor system's {@code
   * pekko.actor.typed.restart-stash-capacity} (the default)}
   */
  public OptionalInt getStashCapacitySetting() {
    Integer capacity = values.stashCapacity;
    return capacity == null ? OptionalInt.empty() : OptionalInt.of(capacity);
  }

  /** {@return the permanent failure types: unmodifiable, in the order given, without duplicates} */
  public List<Class<? extends Throwable>> getStopOn() {
    return values.stopOn;
  }

  /** {@return the rule set with {@link #withStopOn(Predicate)}, or empty (the default)} */
  public Optional<Predicate<Throwable>> getStopOnPredicate() {
    return Optional.ofNullable(values.stopOnPredicate);
  }

  /**
   * {@return the transient failure types: unmodifiable, in the order given, without duplicates;
   * empty (the default) restarts every failure that no stop rule matches}
   */
  public List<Class<? extends Throwable>> getRestartOn() {
    return values.restartOn;
  }

  /** {@return whether the children of a failed actor are stopped before it restarts (default)} */
  public boolean isStopChildren() {
    return values.stopChildren;
  }

  /** {@return whether a child that stops itself is restarted; {@code false} by default} */
  public boolean isRestartOnStop() {
    return values.restartOnStop;
  }

  /** {@return the rule that makes a stop final, or empty (the default)} */
  public Optional<Predicate<Object>> getFinalStopMessage() {
    return Optional.ofNullable(values.finalStopMessage);
  }

  /** {@return whether only the child resets the restart count; {@code false} by default} */
  public boolean isManualReset() {
    return values.manualReset;
  }

  /** {@return the handler of messages during a backoff, or empty (the default): stash only} */
  public Optional<BackoffHandler> getHandlerWhileBackingOff() {
    return Optional.ofNullable(values.handlerWhileBackingOff);
  }

  /** {@return the seed that makes delays reproducible, or empty if each actor seeds itself} */
  public OptionalLong getRandomSeed() {
    return values.randomSeed == null ? OptionalLong.empty() : OptionalLong.of(values.randomSeed);
  }

  /** {@return the longest delay a {@link RetryAfter} hint may ask for} */
  public Duration getMaxRetryAfter() {
    return values.maxRetryAfter;
  }

  /** {@return the level of the log line for a failure that is restarted} */
  public Level getLogLevel() {
    return values.logLevel;
  }

  /** {@return the level used after {@link #getCriticalLogLevelAfter()} failures in a row} */
  public Level getCriticalLogLevel() {
    return values.criticalLogLevel;
  }

  /**
   * {@return how many failures in a row are logged at {@link #getLogLevel()} before {@link
   * #getCriticalLogLevel()} is used; {@code Integer.MAX_VALUE} means never}
   */
  public int getCriticalLogLevelAfter() {
    return values.criticalLogLevelAfter;
  }

  /** {@return whether the supervisor logs} */
  public boolean isLoggingEnabled() {
    return values.loggingEnabled;
  }

  /** {@return the listeners of every event: unmodifiable, in the order they were added} */
  public List<BackoffListener> getListeners() {
    return values.listeners;
  }

  /** {@return whether every event is also published on the actor system's event stream} */
  public boolean isEventStreamPublishing() {
    return values.eventStreamPublishing;
  }

  /**
   * Whether a failure is permanent under this policy, so that the actor stops at once without a
   * restart. This is the one place that classifies failures. The chain of a failure is the failure
   * and its causes ({@link Throwable#getCause()}), outermost first, each once (a cycle ends it). A
   * failure is permanent if
   *
   * <ol>
   *   <li>a stop rule matches: a throwable of its chain is an instance of one of {@link
   *       #getStopOn()}, or the {@linkplain #getStopOnPredicate() stop predicate} returns {@code
   *       true} for one; or else
   *   <li>{@link #getRestartOn()} is not empty and no throwable of its chain is an instance of one
   *       of its types.
   * </ol>
   *
   * <p>So stop rules win over the restart list: with {@code withRestartOn(IOException.class)
   * .withStopOn(FileNotFoundException.class)} an {@code IOException} is restarted, a {@code
   * FileNotFoundException} (an {@code IOException}) stops, and an {@code IllegalStateException}
   * stops. If the stop predicate throws, its exception is added to the failure as a suppressed
   * exception and the failure counts as permanent: a broken rule stops the actor visibly rather
   * than retrying forever. That holds for whatever it throws (an {@code Error}, or a checked
   * exception thrown sneakily), except fatal errors ({@code VirtualMachineError}, {@code
   * LinkageError}, {@code InterruptedException}, ...), which pass through uncaught. A failure built
   * with suppression disabled (the four-argument {@code Throwable} constructor with {@code
   * enableSuppression = false}, common for cheap, stackless exceptions) cannot carry the rule's
   * exception: it still counts as permanent, but the rule's exception is not shown; test a stop
   * predicate on its own if your failures are of that kind.
   *
   * @param failure the failure
   * @return {@code true} if the actor should stop without a restart
   * @throws NullPointerException if {@code failure} is {@code null}
   */
  public boolean isPermanent(Throwable failure) {
    return Causes.isPermanent(failure, values.stopOn, values.stopOnPredicate, values.restartOn);
  }

  /**
   * Two policies are equal if every setting is equal: the same durations, numbers, jitter (by the
   * jitter's own {@code equals}), failure types in the same order, the same predicate and listener
   * instances, and an equal budget.
   *
   * @param o the other object
   * @return whether {@code o} is an equal policy
   */
  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof BackoffPolicy that && PolicySetting.equal(values, that.values));
  }

  @Override
  public int hashCode() {
    return PolicySetting.hash(values);
  }

  /**
   * Every setting, by its Java name, for example {@code BackoffPolicy{minBackoff=PT0.1S, ...}}.
   *
   * @return the settings
   */
  @Override
  public String toString() {
    return "BackoffPolicy" + PolicySetting.show(values);
  }
}
