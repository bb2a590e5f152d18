package dev.supervision.backoff;

import com.typesafe.config.Config;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import dev.supervision.backoff.internal.policy.PolicyConfig;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;
import java.util.Arrays;
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
 * <p>Create one with {@link #exponential(Duration, Duration)} (or {@link #fromConfig(Config,
 * String)}) and refine it with the {@code withX} methods, each of which returns a new policy and
 * states its default. The delay of restart {@code n} (1 after a start or a reset) is {@code
 * jitter(min(maxBackoff, minBackoff * multiplier^(n-1)))}, lowered to {@code maxBackoff}, then
 * raised to a {@link RetryAfter} hint if the failure carries one.
 *
 * <p>Every setter throws {@link NullPointerException} naming the parameter for a {@code null}
 * argument and {@link IllegalArgumentException} naming the parameter and the rejected value for a
 * value outside its rule.
 */
public final class BackoffPolicy {

  private final PolicySetting.Values values;

  private BackoffPolicy(PolicySetting.Values values) {
    this.values = values;
  }

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
   *   jitter = full          # full | equal | decorrelated | none
   *   max-restarts = off     # or a number
   *   restart-on = ["java.io.IOException"]
   * }
   * }</pre>
   *
   * <p>{@code docs/configuration.md} lists the keys with their defaults and methods. A key the
   * block leaves out comes from {@code supervision-backoff.default-policy} in {@code root}, else
   * from {@code reference.conf}. Listeners, a stop predicate and custom jitters are code only.
   * Class names are loaded with the thread's context class loader. {@code budget = orders-db} names
   * a {@link RestartBudget} defined at {@code supervision-backoff.budgets.orders-db}, which many
   * policies can share.
   *
   * @param root the whole config
   * @param path the path of the policy block in {@code root}, for example {@code
   *     "my-service.worker-backoff"}
   * @return a new policy
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if there is no block at {@code path}, a key is not a setting,
   *     a value or class name is not allowed, the budget is not defined or not valid, or {@code
   *     root} is not resolved; the message names the setting's full path, the value and what is
   *     allowed: {@code my-service.worker-backoff.jitter: "fulll" is not one of full, equal, ...}
   */
  public static BackoffPolicy fromConfig(Config root, String path) {
    return new BackoffPolicy(
        PolicySetting.read(() -> PolicyConfig.policy(root, path, PolicySetting.ALLOWED), path));
  }

  /**
   * Reads a policy from a HOCON block whose path is not known. As {@link #fromConfig(Config,
   * String)}, which is preferred, except that missing keys come from {@code reference.conf} only,
   * messages name the key and the file and line of its value, and a {@code budget} is rejected.
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
   * 0. Default {@code (minBackoff + maxBackoff) / 2}, as Pekko.
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
   * Limits the number of restarts between resets: the failure after {@code maxRestarts} restarts
   * stops the actor. Unlike Pekko's {@code withMaxRestarts}, 0 means stop on the first failure.
   * Default: unlimited.
   *
   * @param maxRestarts {@code >= 0}
   * @return a new policy
   * @throws IllegalArgumentException if {@code maxRestarts} is negative
   */
  public BackoffPolicy withMaxRestarts(int maxRestarts) {
    return with(PolicySetting.MAX_RESTARTS, maxRestarts);
  }

  /** {@return a new policy without a restart limit (the default)} */
  public BackoffPolicy withUnlimitedRestarts() {
    return new BackoffPolicy(values.without(PolicySetting.MAX_RESTARTS));
  }

  /**
   * Sets how many messages (and signals) are kept while the actor waits for its restart; they go in
   * order to the new incarnation, and those that do not fit are published as {@code Dropped}.
   * Default: unset, the actor system's {@code pekko.actor.typed.restart-stash-capacity}, as Pekko.
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
   * default none. See {@link #isPermanent(Throwable)}.
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
   * without a restart. Replaces the previous predicate; either it or {@link #withStopOn(Class[])}
   * matching is enough. Default none. See {@link #isPermanent(Throwable)}.
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
   * types, or has one in its cause chain, is restarted; any other stops the actor at once (as
   * Pekko's {@code onFailure(IOException.class, ...)} lets other types through); a stop rule still
   * wins (see {@link #isPermanent(Throwable)}). Replaces the previous list; empty (the default)
   * restarts every failure that no stop rule matches.
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
   * Pekko). With {@code false} they survive the restart, which does not wait for them (Pekko's
   * {@code withStopChildren(false)}); the new incarnation must not reuse their names.
   *
   * @param stopChildren whether to stop the children on a restart
   * @return a new policy
   */
  public BackoffPolicy withStopChildren(boolean stopChildren) {
    return with(PolicySetting.STOP_CHILDREN, stopChildren);
  }

  /**
   * Sets whether a child that stops itself (returns {@code Behaviors.stopped()}) is started again
   * after a backoff, as classic {@code BackoffOpts.onStop}. Default {@code false}: the actor stops
   * with its child, as under Pekko's typed supervisors. With {@code true} such a stop is handled as
   * a failure (count, delay, budget permit, restart limit), whose events carry a {@link
   * ChildStopped} cause; stop rules, hints and an adaptive budget's judgement do not apply to it. A
   * stop is final if it comes from outside (the parent, a {@code PoisonPill}, a shutdown) or after
   * a message matching {@link #withFinalStopMessage(Predicate)} (a sharding entity's stop message).
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
   * stop stops the actor; during a backoff, at once. Default: none.
   *
   * @param finalStopMessage a thread-safe, side-effect-free predicate, called on the actor's thread
   *     for every message until one matches; one that throws counts as no match (one WARN line)
   * @return a new policy
   * @throws NullPointerException if {@code finalStopMessage} is {@code null}
   */
  public BackoffPolicy withFinalStopMessage(Predicate<Object> finalStopMessage) {
    return with(PolicySetting.FINAL_STOP_MESSAGE, finalStopMessage);
  }

  /**
   * Makes the child, not the clock, decide when the restart count starts over (classic {@code
   * withManualReset}): only {@code BackoffSupervisor.resetBackoff(context)} resets it, not {@link
   * #withResetAfter(Duration)}, which counts idle time as healthy. Default: off.
   *
   * @return a new policy
   */
  public BackoffPolicy withManualReset() {
    return with(PolicySetting.MANUAL_RESET, true);
  }

  /**
   * Lets {@code handler} answer the messages that arrive while the actor waits for its restart,
   * instead of keeping their senders waiting on the stash (classic {@code withReplyWhileStopped}),
   * with one more timer during a backoff to count the time left. Default: none.
   *
   * @param handler a handler that does not block; see {@link BackoffHandler}
   * @return a new policy
   * @throws NullPointerException if {@code handler} is {@code null}
   */
  public BackoffPolicy withHandlerWhileBackingOff(BackoffHandler handler) {
    return with(PolicySetting.HANDLER_WHILE_BACKING_OFF, handler);
  }

  /**
   * Makes the delays reproducible: each actor seeds its generator with this seed mixed with its
   * path, so a path always gets the same delays, and two actors different ones. Default: none.
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
   * SLF4J logger {@code dev.supervision.backoff.BackoffSupervisor}. Default WARN, where Pekko logs
   * ERROR: a restarted failure has been handled, and a resource that is down would fill an ERROR
   * channel with one line per attempt. ERROR is kept for an actor that stops and the failures after
   * {@link #withCriticalLogLevel(Level, int)}'s count; {@code Level.ERROR} gives Pekko's behaviour.
   *
   * @param logLevel the level
   * @return a new policy
   * @throws NullPointerException if {@code logLevel} is {@code null}
   */
  public BackoffPolicy withLogLevel(Level logLevel) {
    return with(PolicySetting.LOG_LEVEL, logLevel);
  }

  /**
   * Logs at {@code criticalLogLevel} instead of {@link #getLogLevel()} once an actor has failed
   * more than {@code afterFailures} times in a row (without a reset), like Pekko's {@code
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
   * Sets whether failure lines are written for a herd rather than per actor. Aggregated, each
   * actor's own line is at DEBUG, and once a second (on the scheduler) one line per cause, reason
   * and level sums up the system's actors: how many failed how often, the first failure and actor,
   * and its stack trace when the cause is new. Default: on for a policy with a {@link
   * #withBudget(RestartBudget) budget} (a group that fails together), off without one.
   *
   * @param aggregated whether to aggregate
   * @return a new policy
   */
  public BackoffPolicy withAggregatedLogging(boolean aggregated) {
    return with(PolicySetting.AGGREGATED_LOGGING, aggregated);
  }

  /** {@return the aggregation setting, or, if unset, whether the policy has a budget} */
  public boolean isAggregatedLogging() {
    return values.aggregatedLogging != null ? values.aggregatedLogging : values.budget != null;
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
    return with(
        PolicySetting.LISTENERS,
        Stream.concat(getListeners().stream(), Stream.of(listener)).toList());
  }

  /**
   * Makes every actor of this policy ask {@code budget} for a permit before it restarts, once its
   * backoff delay has passed (see {@link RestartBudget}). Default: none.
   *
   * @param budget the budget
   * @return a new policy
   * @throws NullPointerException if {@code budget} is {@code null}
   */
  public BackoffPolicy withBudget(RestartBudget budget) {
    return with(PolicySetting.BUDGET, budget);
  }

  /** {@return a new policy without a restart budget (the default)} */
  public BackoffPolicy withoutBudget() {
    return new BackoffPolicy(values.without(PolicySetting.BUDGET));
  }

  /** {@return the budget that actors of this policy share, or empty (the default)} */
  public Optional<RestartBudget> getBudget() {
    return Optional.ofNullable(values.budget);
  }

  /**
   * Also publishes every {@link BackoffEvent} of every actor supervised with the new policy on the
   * actor system's (local) event stream, where any actor can subscribe to {@code
   * BackoffEvent.class}. Off by default, and then free: events are built only when someone wants
   * them. When on, each failure, restart, reset or stop is one message; it holds the failure, so a
   * subscriber that keeps events keeps the exceptions alive.
   *
   * @param enabled whether to publish
   * @return a new policy
   */
  public BackoffPolicy withEventStreamPublishing(boolean enabled) {
    return with(PolicySetting.EVENT_STREAM_PUBLISHING, enabled);
  }

  /**
   * The delays this policy gives to one actor before restart 1, 2, 3, ... (without resets and
   * hints): {@link #getMaxRestarts()} of them, or endless; drawn from {@code random} as consumed.
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
    return values.maxRestarts == null ? all : all.limit(values.maxRestarts);
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

  /** {@return the stash capacity set, or empty (the default): the actor system's} */
  public OptionalInt getStashCapacitySetting() {
    return values.stashCapacity == null
        ? OptionalInt.empty()
        : OptionalInt.of(values.stashCapacity);
  }

  /** {@return the permanent failure types: unmodifiable, in the order given, without duplicates} */
  public List<Class<? extends Throwable>> getStopOn() {
    return values.stopOn;
  }

  /** {@return the rule set with {@link #withStopOn(Predicate)}, or empty (the default)} */
  public Optional<Predicate<Throwable>> getStopOnPredicate() {
    return Optional.ofNullable(values.stopOnPredicate);
  }

  /** {@return the transient failure types: unmodifiable, in the order given, without duplicates} */
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

  /** {@return the failures in a row logged at the log level; {@code Integer.MAX_VALUE}: all} */
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
   * restart. The chain of a failure is the failure and its causes, outermost first, each once. A
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
   * <p>If the stop predicate throws (anything but a fatal error), the failure counts as permanent
   * (a broken rule stops the actor visibly), with the rule's exception added as suppressed.
   *
   * @param failure the failure
   * @return {@code true} if the actor should stop without a restart
   * @throws NullPointerException if {@code failure} is {@code null}
   */
  public boolean isPermanent(Throwable failure) {
    return Causes.isPermanent(failure, values.stopOn, values.stopOnPredicate, values.restartOn);
  }

  /** Equal if every setting is: jitters and budgets by {@code equals}, the rest by identity. */
  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof BackoffPolicy that && PolicySetting.equal(values, that.values));
  }

  @Override
  public int hashCode() {
    return PolicySetting.hash(values);
  }

  /** {@return every setting by its Java name: {@code BackoffPolicy{minBackoff=PT0.1S, ...}}} */
  @Override
  public String toString() {
    return "BackoffPolicy" + PolicySetting.show(values);
  }
}
