package dev.supervision.backoff;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import dev.supervision.backoff.internal.policy.PolicyConfig;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.internal.util.ParameterException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.slf4j.event.Level;
import scala.util.control.NonFatal;

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
 * <p>Every {@code withX} method states its setting's default. In short: multiplier 2, {@link
 * Jitter#full() full jitter}, reset after {@code (minBackoff + maxBackoff) / 2} and unlimited
 * restarts (as Pekko), the stash capacity of the actor system ({@code
 * pekko.actor.typed.restart-stash-capacity}, as Pekko), children stopped on a restart (as Pekko),
 * every failure restarted, failures logged at WARN (Pekko: ERROR; see {@link #withLogLevel(Level)}),
 * {@link RetryAfter} hints up to 1 hour, no listeners, no budget, no event stream publishing. The
 * library's {@code docs/configuration.md} has the full table, with the configuration keys.
 *
 * <p>A policy can also be read from HOCON with {@link #fromConfig(Config, String)}, so that
 * operators can change it in {@code application.conf} without a rebuild.
 *
 * <p>Every setter throws {@link NullPointerException} naming the parameter for a {@code null}
 * argument and {@link IllegalArgumentException} naming the parameter and the rejected value for a
 * value outside its rule.
 */
public final class BackoffPolicy {

  /** The value of every setting, in the order of {@link Setting#ALL}; never modified. */
  private final Object[] values;

  private BackoffPolicy(Object[] values) {
    this.values = values;
  }

  /**
   * Returns a copy of this policy with one setting changed, after the setting's rule ({@link
   * Setting#checked}); rules that involve another argument are checked before.
   */
  <T> BackoffPolicy with(Setting<T> setting, T value) {
    Object[] copy = values.clone();
    copy[setting.index] = setting.checked(value);
    return new BackoffPolicy(copy);
  }

  @SuppressWarnings("unchecked")
  private <T> T get(Setting<T> setting) {
    return (T) values[setting.index];
  }

  /**
   * An exponential backoff from {@code minBackoff} to {@code maxBackoff} with full jitter,
   * multiplier 2, unlimited restarts and the other defaults listed on this class.
   *
   * @param minBackoff the bound of the first restart's delay; {@code > 0}
   * @param maxBackoff the hard cap of every delay; {@code >= minBackoff} and {@code <= 180 days}
   * @return a new policy
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if a duration is zero, negative or above 180 days, or if
   *     {@code maxBackoff < minBackoff}
   */
  public static BackoffPolicy exponential(Duration minBackoff, Duration maxBackoff) {
    Check.delay(minBackoff, "minBackoff");
    Check.delay(maxBackoff, "maxBackoff");
    Check.argument(
        maxBackoff.compareTo(minBackoff) >= 0,
        "maxBackoff",
        ">= minBackoff (" + minBackoff + ")",
        maxBackoff);
    Object[] values = Setting.codeDefaults();
    values[Setting.MIN_BACKOFF.index] = minBackoff;
    values[Setting.MAX_BACKOFF.index] = maxBackoff;
    values[Setting.RESET_AFTER.index] = minBackoff.plus(maxBackoff).dividedBy(2);
    return new BackoffPolicy(values);
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
   * reference.conf}, which documents each (one per setting that configuration can hold; the
   * library's {@code docs/configuration.md} lists them with their defaults). A key the block leaves
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
   *     substitutions where the policy is read; the message starts with the
   *     full path of the
   *     setting, then the value and what is allowed, for example {@code
   *     my-service.worker-backoff.jitter: "fulll" is not one of full, equal, decorrelated, none}
   */
  public static BackoffPolicy fromConfig(Config root, String path) {
    try {
      return Setting.read(PolicyConfig.policy(root, path, Setting.KEYS, Setting.ALLOWED));
    } catch (ConfigException.NotResolved e) {
      throw notResolved(path, e);
    }
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
    try {
      return Setting.read(PolicyConfig.policy(config, Setting.KEYS, Setting.ALLOWED));
    } catch (ConfigException.NotResolved e) {
      throw notResolved("the policy block", e);
    }
  }

  /** A config read before its substitutions ({@code ${...}}) were resolved. */
  private static IllegalArgumentException notResolved(String where, ConfigException.NotResolved e) {
    return new IllegalArgumentException(
        where
            + ": the config is not resolved (call resolve() on it first; ConfigFactory.load() and"
            + " an actor system's settings are resolved): "
            + e.getMessage(),
        e);
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
    return with(Setting.MULTIPLIER, multiplier);
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
    Check.nonNull(jitter, "jitter");
    return with(Setting.JITTER, jitter);
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
    return with(Setting.RESET_AFTER, resetAfter);
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
    return with(Setting.MAX_RESTARTS, maxRestarts);
  }

  /**
   * Removes the restart limit (the default).
   *
   * @return a new policy
   */
  public BackoffPolicy withUnlimitedRestarts() {
    return with(Setting.MAX_RESTARTS, null);
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
    return with(Setting.STASH_CAPACITY, stashCapacity);
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
    List<Class<? extends Throwable>> copy = distinct(types);
    return with(Setting.STOP_ON, copy);
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
    Check.nonNull(stopOn, "stopOn");
    return with(Setting.STOP_ON_PREDICATE, stopOn);
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
    List<Class<? extends Throwable>> copy = distinct(types);
    return with(Setting.RESTART_ON, copy);
  }

  private static List<Class<? extends Throwable>> distinct(Class<? extends Throwable>[] types) {
    Check.nonNull(types, "types");
    Set<Class<? extends Throwable>> set = new LinkedHashSet<>();
    for (int i = 0; i < types.length; i++) {
      set.add(Check.nonNull(types[i], "types[" + i + "]"));
    }
    return List.copyOf(set);
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
    return with(Setting.STOP_CHILDREN, stopChildren);
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
    return with(Setting.RESTART_ON_STOP, restartOnStop);
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
    Check.nonNull(finalStopMessage, "finalStopMessage");
    return with(Setting.FINAL_STOP_MESSAGE, finalStopMessage);
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
    return with(Setting.MANUAL_RESET, true);
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
    Check.nonNull(handler, "handler");
    return with(Setting.HANDLER_WHILE_BACKING_OFF, handler);
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
    return with(Setting.RANDOM_SEED, seed);
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
    return with(Setting.MAX_RETRY_AFTER, maxRetryAfter);
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
    Check.nonNull(logLevel, "logLevel");
    return with(Setting.LOG_LEVEL, logLevel);
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
    Check.nonNull(criticalLogLevel, "criticalLogLevel");
    Check.argument(afterFailures >= 1, "afterFailures", ">= 1", afterFailures);
    return with(Setting.CRITICAL_LOG_LEVEL, criticalLogLevel)
        .with(Setting.CRITICAL_LOG_LEVEL_AFTER, afterFailures);
  }

  /**
   * Turns the supervisor's own log lines on (the default) or off. Events are still reported.
   *
   * @param enabled whether to log
   * @return a new policy
   */
  public BackoffPolicy withLoggingEnabled(boolean enabled) {
    return with(Setting.LOGGING_ENABLED, enabled);
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
    return with(Setting.AGGREGATED_LOGGING, aggregated);
  }

  /**
   * Whether a herd's lines (failures, give-ups, restarts after a stop) are logged as a herd (see
   * {@link #withAggregatedLogging(boolean)}).
   *
   * @return the setting, or, if it was not set, whether the policy has a budget
   */
  public boolean isAggregatedLogging() {
    Boolean set = get(Setting.AGGREGATED_LOGGING);
    return set != null ? set : getBudget().isPresent();
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
    return with(Setting.LISTENERS, Collections.unmodifiableList(copy));
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
    Check.nonNull(budget, "budget");
    return with(Setting.BUDGET, budget);
  }

  /**
   * Removes the restart budget (the default).
   *
   * @return a new policy
   */
  public BackoffPolicy withoutBudget() {
    return with(Setting.BUDGET, null);
  }

  /**
   * The restart budget that actors of this policy share.
   *
   * @return the budget, or empty if restarts are limited only by the backoff
   */
  public Optional<RestartBudget> getBudget() {
    return Optional.ofNullable(get(Setting.BUDGET));
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
    return with(Setting.EVENT_STREAM_PUBLISHING, enabled);
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

  /**
   * The bound of the first restart's delay.
   *
   * @return the minimum backoff
   */
  public Duration getMinBackoff() {
    return get(Setting.MIN_BACKOFF);
  }

  /**
   * The hard cap of every delay (except those raised by a {@link RetryAfter} hint).
   *
   * @return the maximum backoff
   */
  public Duration getMaxBackoff() {
    return get(Setting.MAX_BACKOFF);
  }

  /**
   * The growth factor of the exponential bound.
   *
   * @return the multiplier, {@code >= 1.0}
   */
  public double getMultiplier() {
    return get(Setting.MULTIPLIER);
  }

  /**
   * How the bound is turned into a delay.
   *
   * @return the jitter
   */
  public Jitter getJitter() {
    return get(Setting.JITTER);
  }

  /**
   * How long a restarted actor must run without failing for its count to reset.
   *
   * @return the reset window
   */
  public Duration getResetAfter() {
    return get(Setting.RESET_AFTER);
  }

  /**
   * The restart limit between resets.
   *
   * @return the limit, or empty for unlimited restarts
   */
  public OptionalInt getMaxRestarts() {
    Integer maxRestarts = get(Setting.MAX_RESTARTS);
    return maxRestarts == null ? OptionalInt.empty() : OptionalInt.of(maxRestarts);
  }

  /**
   * How many messages are kept during a backoff, if this policy sets it. The supervisor uses this
   * value when present and {@code pekko.actor.typed.restart-stash-capacity} of the actor system's
   * configuration otherwise.
   *
   * @return the capacity set with {@link #withStashCapacity(int)} or {@code stash-capacity} in
   *     configuration, or empty if it is left to the actor system (the default)
   */
  public OptionalInt getStashCapacitySetting() {
    Integer stashCapacity = get(Setting.STASH_CAPACITY);
    return stashCapacity == null ? OptionalInt.empty() : OptionalInt.of(stashCapacity);
  }

  /**
   * The permanent failure types.
   *
   * @return an unmodifiable list, in the order given, without duplicates
   */
  public List<Class<? extends Throwable>> getStopOn() {
    return get(Setting.STOP_ON);
  }

  /**
   * The permanent-failure rule set with {@link #withStopOn(Predicate)}.
   *
   * @return the predicate, or empty if there is none (the default)
   */
  public Optional<Predicate<Throwable>> getStopOnPredicate() {
    return Optional.ofNullable(get(Setting.STOP_ON_PREDICATE));
  }

  /**
   * The transient failure types: if not empty, only these are restarted.
   *
   * @return an unmodifiable list, in the order given, without duplicates; empty (the default)
   *     restarts every failure that no stop rule matches
   */
  public List<Class<? extends Throwable>> getRestartOn() {
    return get(Setting.RESTART_ON);
  }

  /**
   * Whether the children of a failed actor are stopped before it restarts.
   *
   * @return {@code true} (the default) if they are
   */
  public boolean isStopChildren() {
    return get(Setting.STOP_CHILDREN);
  }

  /**
   * Whether a child that stops itself is restarted.
   *
   * @return {@code true} if it is; {@code false} (the default) if its stop stops the actor
   */
  public boolean isRestartOnStop() {
    return get(Setting.RESTART_ON_STOP);
  }

  /**
   * The rule that makes a stop final under {@link #isRestartOnStop()}.
   *
   * @return the predicate, or empty if there is none (the default)
   */
  public Optional<Predicate<Object>> getFinalStopMessage() {
    return Optional.ofNullable(get(Setting.FINAL_STOP_MESSAGE));
  }

  /**
   * Whether only the child resets the restart count ({@link #withManualReset()}).
   *
   * @return {@code true} if the reset window does not reset the count; {@code false} by default
   */
  public boolean isManualReset() {
    return get(Setting.MANUAL_RESET);
  }

  /**
   * The handler of the messages that arrive during a backoff.
   *
   * @return the handler, or empty if messages are only stashed (the default)
   */
  public Optional<BackoffHandler> getHandlerWhileBackingOff() {
    return Optional.ofNullable(get(Setting.HANDLER_WHILE_BACKING_OFF));
  }

  /**
   * The seed that makes delays reproducible.
   *
   * @return the seed, or empty if each actor seeds itself
   */
  public OptionalLong getRandomSeed() {
    Long seed = get(Setting.RANDOM_SEED);
    return seed == null ? OptionalLong.empty() : OptionalLong.of(seed);
  }

  /**
   * The longest delay a {@link RetryAfter} hint may ask for.
   *
   * @return the limit
   */
  public Duration getMaxRetryAfter() {
    return get(Setting.MAX_RETRY_AFTER);
  }

  /**
   * The level of the log line for a failure that is restarted.
   *
   * @return the level
   */
  public Level getLogLevel() {
    return get(Setting.LOG_LEVEL);
  }

  /**
   * The level used once an actor failed more than {@link #getCriticalLogLevelAfter()} times in a row.
   *
   * @return the level
   */
  public Level getCriticalLogLevel() {
    return get(Setting.CRITICAL_LOG_LEVEL);
  }

  /**
   * How many failures in a row are logged at {@link #getLogLevel()} before {@link
   * #getCriticalLogLevel()} is used.
   *
   * @return the count; {@code Integer.MAX_VALUE} means never
   */
  public int getCriticalLogLevelAfter() {
    return get(Setting.CRITICAL_LOG_LEVEL_AFTER);
  }

  /**
   * Whether the supervisor logs.
   *
   * @return {@code true} if it logs
   */
  public boolean isLoggingEnabled() {
    return get(Setting.LOGGING_ENABLED);
  }

  /**
   * The listeners that receive every event.
   *
   * @return an unmodifiable list, in the order they were added
   */
  public List<BackoffListener> getListeners() {
    return get(Setting.LISTENERS);
  }

  /**
   * Whether every event is also published on the actor system's event stream.
   *
   * @return {@code true} if events are published
   */
  public boolean isEventStreamPublishing() {
    return get(Setting.EVENT_STREAM_PUBLISHING);
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
    Check.nonNull(failure, "failure");
    List<Class<? extends Throwable>> stopOn = getStopOn();
    Predicate<Throwable> stopOnPredicate = get(Setting.STOP_ON_PREDICATE);
    List<Class<? extends Throwable>> restartOn = getRestartOn();
    if (stopOn.isEmpty() && stopOnPredicate == null && restartOn.isEmpty()) {
      return false;
    }
    boolean transientFound = restartOn.isEmpty();
    for (Throwable t : Causes.chain(failure)) {
      if (isInstanceOfAny(t, stopOn) || matches(stopOnPredicate, failure, t)) {
        return true;
      }
      transientFound = transientFound || isInstanceOfAny(t, restartOn);
    }
    return !transientFound;
  }

  private static boolean matches(Predicate<Throwable> stopOn, Throwable failure, Throwable t) {
    if (stopOn == null) {
      return false;
    }
    try {
      return stopOn.test(t);
    } catch (Throwable e) {
      if (!NonFatal.apply(e)) {
        throw e; // a fatal error is not the rule's verdict; as everywhere, it is not caught
      }
      if (e != failure) {
        failure.addSuppressed(e);
      }
      return true;
    }
  }

  private static boolean isInstanceOfAny(Throwable t, List<Class<? extends Throwable>> types) {
    for (Class<? extends Throwable> type : types) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
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
    return this == o || (o instanceof BackoffPolicy that && Arrays.equals(values, that.values));
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  /**
   * Every setting, by its Java name, for example {@code BackoffPolicy{minBackoff=PT0.1S, ...}}.
   *
   * @return the settings
   */
  @Override
  public String toString() {
    StringJoiner joiner = new StringJoiner(", ", "BackoffPolicy{", "}");
    for (Setting<?> setting : Setting.ALL) {
      joiner.add(setting.name + "=" + setting.show(values[setting.index]));
    }
    return joiner.toString();
  }

  /**
   * One setting of a {@link BackoffPolicy}, and the table of all of them: the one place where a
   * setting is written. A policy stores its values in the order of {@link #ALL}; its {@code equals},
   * {@code hashCode} and {@code toString}, {@link BackoffPolicy#fromConfig(com.typesafe.config.Config,
   * String) fromConfig} and the key table of the configuration documentation all derive from this
   * table. Adding a setting is a constant here, its {@code withX}/{@code getX} pair on the policy, its
   * line in {@code reference.conf} (a test checks it) and its test.
   *
   * <p>Package-private: not API. Nested in the policy, which stores its values in this table's
   * order, so that the value and its table are one file.
   *
   * @param <T> the type of the stored value; {@code null} is a value (unset, none, off, auto) where
   *     the setting allows it
   */
  static final class Setting<T> {

    /** How a setting's value is read from its key: a method of {@link PolicyConfig}. */
    @FunctionalInterface
    interface Reader<T> {
      T read(PolicyConfig config, String key);
    }

    private static final List<Setting<?>> TABLE = new ArrayList<>();
    private static final List<String> LEVELS = List.of("error", "warn", "info", "debug", "trace");
    private static final String LEVEL = "one of error, warn, info, debug, trace";
    private static final String CLASSES = "a list of Throwable class names";
    private static final String MULTIPLIER_RULE = "a finite number >= 1.0";

    /** The built-in jitters; configuration accepts their names (their {@code toString}). */
    private static final List<Jitter> BUILT_IN_JITTERS =
        List.of(Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none());

    private static final List<String> JITTER_NAMES =
        BUILT_IN_JITTERS.stream().map(Jitter::toString).toList();

    /**
     * A setting's rule: throws, naming the parameter {@code name} and the value, if {@code value}
     * breaks it. Applied by {@link BackoffPolicy#with} to every value set, so a {@code withX} method
     * that has no other argument to check only delegates.
     */
    @FunctionalInterface
    interface Rule<T> {
      void check(T value, String name);
    }

    static final Setting<Duration> MIN_BACKOFF =
        new Setting<>(
            "minBackoff",
            null,
            "exponential(minBackoff, maxBackoff)",
            "The bound of the first restart's delay.",
            "min-backoff",
            "a duration > 0",
            PolicyConfig::duration,
            null);

    static final Setting<Duration> MAX_BACKOFF =
        new Setting<>(
            "maxBackoff",
            null,
            "exponential(minBackoff, maxBackoff)",
            "The hard cap of every delay; only a Retry-After hint may exceed it.",
            "max-backoff",
            "a duration >= min-backoff and <= 180d",
            PolicyConfig::duration,
            null);

    static final Setting<Double> MULTIPLIER =
        new Setting<>(
                "multiplier",
                2.0,
                "withMultiplier(double)",
                "The growth factor of the exponential bound.",
                "multiplier",
                MULTIPLIER_RULE,
                PolicyConfig::number,
                BackoffPolicy::withMultiplier)
            .checkedBy(
                (v, n) ->
                    Check.argument(
                        !Double.isNaN(v) && !Double.isInfinite(v) && v >= 1.0,
                        n,
                        MULTIPLIER_RULE,
                        v));

    static final Setting<Jitter> JITTER =
        new Setting<>(
            "jitter",
            Jitter.full(),
            "withJitter(Jitter)",
            "How the bound becomes a delay; code may pass its own Jitter.",
            "jitter",
            "one of " + String.join(", ", JITTER_NAMES),
            (c, k) -> BUILT_IN_JITTERS.get(JITTER_NAMES.indexOf(c.oneOf(k, JITTER_NAMES))),
            BackoffPolicy::withJitter);

    static final Setting<Duration> RESET_AFTER =
        new Setting<>(
                "resetAfter",
                null,
                "withResetAfter(Duration)",
                "How long a restarted actor must run without failing before its restart count returns to 0;"
                    + " auto is (min-backoff + max-backoff) / 2, as Pekko.",
                "reset-after",
                "auto or a duration > 0",
                (c, k) ->
                    c.isWord(k, "auto")
                        ? null
                        : c.duration(k, "a duration (for example 30s) or auto"),
                (p, v) -> v == null ? p : p.withResetAfter(v))
            .checkedBy(Check::delay);

    static final Setting<Integer> MAX_RESTARTS =
        new Setting<>(
                "maxRestarts",
                null,
                "withMaxRestarts(int), withUnlimitedRestarts()",
                "Restarts allowed between two resets before the actor is stopped; 0 stops on the first"
                    + " failure; off is unlimited.",
                "max-restarts",
                "off or a whole number >= 0",
                (c, k) -> c.isWord(k, "off") ? null : c.integer(k, "off or a whole number >= 0"),
                (p, v) -> v == null ? p.withUnlimitedRestarts() : p.withMaxRestarts(v))
            .checkedBy(Setting::unsetOrNonNegative);

    static final Setting<Integer> STASH_CAPACITY =
        new Setting<>(
                "stashCapacity",
                null,
                "withStashCapacity(int)",
                "Messages kept while the actor waits for its restart (the rest are published as Dropped);"
                    + " auto is the actor system's pekko.actor.typed.restart-stash-capacity, as Pekko.",
                "stash-capacity",
                "auto or a whole number >= 0",
                (c, k) -> c.isWord(k, "auto") ? null : c.integer(k, "auto or a whole number >= 0"),
                (p, v) -> v == null ? p.with(Setting.STASH_CAPACITY, null) : p.withStashCapacity(v))
            .checkedBy(Setting::unsetOrNonNegative);

    static final Setting<Boolean> STOP_CHILDREN =
        new Setting<>(
            "stopChildren",
            true,
            "withStopChildren(boolean)",
            "Whether the children of a failed actor are stopped before it restarts, as Pekko; with off"
                + " they survive and the restart does not wait for them.",
            "stop-children",
            PolicyConfig.BOOLEAN,
            PolicyConfig::bool,
            BackoffPolicy::withStopChildren);

    static final Setting<Boolean> RESTART_ON_STOP =
        new Setting<>(
            "restartOnStop",
            false,
            "withRestartOnStop(boolean)",
            "Whether a child that stops itself is restarted like a failed one (counted, delayed by the"
                + " same schedule, max-restarts and the budget apply), as classic BackoffOpts.onStop; a"
                + " stop from outside is always final.",
            "restart-on-stop",
            PolicyConfig.BOOLEAN,
            PolicyConfig::bool,
            BackoffPolicy::withRestartOnStop);

    static final Setting<Predicate<Object>> FINAL_STOP_MESSAGE =
        code(
            "finalStopMessage",
            null,
            "withFinalStopMessage(Predicate)",
            "With restart-on-stop: a stop after a message matching it is final; during a backoff such"
                + " a message stops the actor at once.");

    static final Setting<Boolean> MANUAL_RESET =
        new Setting<>(
            "manualReset",
            false,
            "withManualReset()",
            "Whether only BackoffSupervisor.resetBackoff(ctx), called by the child, resets the restart"
                + " count; with on, reset-after no longer does.",
            "manual-reset",
            PolicyConfig.BOOLEAN,
            PolicyConfig::bool,
            (p, v) -> v ? p.withManualReset() : p.with(Setting.MANUAL_RESET, false));

    static final Setting<BackoffHandler> HANDLER_WHILE_BACKING_OFF =
        code(
            "handlerWhileBackingOff",
            null,
            "withHandlerWhileBackingOff(BackoffHandler)",
            "Sees every message that arrives during a backoff; true means it answered it (not"
                + " stashed).");

    static final Setting<List<Class<? extends Throwable>>> STOP_ON =
        new Setting<>(
            "stopOn",
            List.of(),
            "withStopOn(Class...)",
            "Failures that stop the actor at once (the failure or a cause in its chain is an instance"
                + " of one); stop rules win over restart-on.",
            "stop-on",
            CLASSES,
            (c, k) -> List.of(c.throwables(k)),
            (p, v) -> p.withStopOn(array(v)));

    static final Setting<Predicate<Throwable>> STOP_ON_PREDICATE =
        code(
            "stopOnPredicate",
            null,
            "withStopOn(Predicate)",
            "A rule that makes failures permanent, tested on each throwable of the cause chain.");

    static final Setting<List<Class<? extends Throwable>>> RESTART_ON =
        new Setting<>(
            "restartOn",
            List.of(),
            "withRestartOn(Class...)",
            "If not empty, only these failures (or failures with one in their cause chain) are"
                + " restarted; any other stops the actor at once.",
            "restart-on",
            CLASSES,
            (c, k) -> List.of(c.throwables(k)),
            (p, v) -> p.withRestartOn(array(v)));

    static final Setting<Long> RANDOM_SEED =
        new Setting<>(
            "randomSeed",
            null,
            "withRandomSeed(long)",
            "A seed that makes the delays reproducible per actor path; off lets each actor seed its"
                + " own generator.",
            "random-seed",
            "off or a whole number",
            (c, k) -> c.isWord(k, "off") ? null : c.longInteger(k, "off or a whole number"),
            (p, v) -> v == null ? p.with(Setting.RANDOM_SEED, null) : p.withRandomSeed(v));

    static final Setting<Duration> MAX_RETRY_AFTER =
        new Setting<>(
                "maxRetryAfter",
                Duration.ofHours(1),
                "withMaxRetryAfter(Duration)",
                "The longest delay that a RetryAfter hint on a failure may ask for.",
                "max-retry-after",
                "a duration > 0",
                PolicyConfig::duration,
                BackoffPolicy::withMaxRetryAfter)
            .checkedBy(Check::delay);

    static final Setting<Level> LOG_LEVEL =
        new Setting<>(
            "logLevel",
            Level.WARN,
            "withLogLevel(Level)",
            "The level of the log line for a failure that is restarted (Pekko logs at ERROR).",
            "log-level",
            LEVEL,
            (c, k) -> level(c.oneOf(k, LEVELS)),
            BackoffPolicy::withLogLevel);

    static final Setting<Level> CRITICAL_LOG_LEVEL =
        new Setting<>(
            "criticalLogLevel",
            Level.ERROR,
            "withCriticalLogLevel(Level, int)",
            "The level used once an actor failed more than critical-log-level-after times in a row.",
            "critical-log-level",
            LEVEL,
            (c, k) -> level(c.oneOf(k, LEVELS)),
            (p, v) -> p.withCriticalLogLevel(v, p.getCriticalLogLevelAfter()));

    static final Setting<Integer> CRITICAL_LOG_LEVEL_AFTER =
        new Setting<>(
            "criticalLogLevelAfter",
            Integer.MAX_VALUE,
            "withCriticalLogLevel(Level, int)",
            "How many failures in a row are logged at log-level first; off never uses"
                + " critical-log-level.",
            "critical-log-level-after",
            "off or a whole number >= 1",
            (c, k) ->
                c.isWord(k, "off") ? Integer.MAX_VALUE : c.integer(k, "off or a whole number >= 1"),
            (p, v) -> p.withCriticalLogLevel(p.getCriticalLogLevel(), v));

    static final Setting<Boolean> LOGGING_ENABLED =
        new Setting<>(
            "loggingEnabled",
            true,
            "withLoggingEnabled(boolean)",
            "Whether the supervisor writes log lines at all (events are reported either way).",
            "logging-enabled",
            PolicyConfig.BOOLEAN,
            PolicyConfig::bool,
            BackoffPolicy::withLoggingEnabled);

    static final Setting<Boolean> AGGREGATED_LOGGING =
        new Setting<>(
            "aggregatedLogging",
            null,
            "withAggregatedLogging(boolean)",
            "Whether a herd's lines are logged as a herd: failures, give-ups and restarts after a"
                + " stop, one line per cause and second with the counts of actors and events, each"
                + " actor's own line at DEBUG; auto is on for a policy with a budget.",
            "aggregate-logs",
            "auto or " + PolicyConfig.BOOLEAN,
            (c, k) -> c.isWord(k, "auto") ? null : c.bool(k),
            (p, v) ->
                v == null ? p.with(Setting.AGGREGATED_LOGGING, null) : p.withAggregatedLogging(v));

    static final Setting<Boolean> EVENT_STREAM_PUBLISHING =
        new Setting<>(
            "eventStreamPublishing",
            false,
            "withEventStreamPublishing(boolean)",
            "Whether every BackoffEvent is also published on the actor system's event stream.",
            "publish-events",
            PolicyConfig.BOOLEAN,
            PolicyConfig::bool,
            BackoffPolicy::withEventStreamPublishing);

    static final Setting<RestartBudget> BUDGET =
        new Setting<>(
            "budget",
            null,
            "withBudget(RestartBudget), withoutBudget()",
            "The name of a restart budget shared by a group of actors, defined at"
                + " `supervision-backoff.budgets.<name>`; null for none.",
            "budget",
            "null or the name of a budget",
            BudgetSetting::read,
            (p, v) -> v == null ? p.withoutBudget() : p.withBudget(v));

    static final Setting<List<BackoffListener>> LISTENERS =
        code(
            "listeners",
            List.of(),
            "withListener(BackoffListener)",
            "Listeners that receive every BackoffEvent, in the order they were added.");

    /** Every setting, in the order of storage, printing, {@code reference.conf} and the docs. */
    static final List<Setting<?>> ALL = Collections.unmodifiableList(TABLE);

    /** The keys of a policy block, in order. */
    static final List<String> KEYS;

    /** What each key allows, for the messages about a null or missing value. */
    static final Map<String, String> ALLOWED;

    static {
      List<String> keys = new ArrayList<>();
      Map<String, String> allowed = new LinkedHashMap<>();
      for (Setting<?> setting : ALL) {
        if (setting.key != null) {
          keys.add(setting.key);
          allowed.put(setting.key, setting.allowed);
        }
      }
      KEYS = List.copyOf(keys);
      ALLOWED = Collections.unmodifiableMap(allowed);
    }

    /** The position of the value in a policy's storage. */
    final int index;

    /** The Java name, as in the policy's {@code toString} and in validation messages. */
    final String name;

    /** The value {@link BackoffPolicy#exponential} starts with. */
    final T codeDefault;

    /** The methods of the policy that set it. */
    final String method;

    /** One sentence for the documentation. */
    final String meaning;

    /** The HOCON key, or {@code null} for a setting that only code can set. */
    final String key;

    /** What the key allows, in HOCON terms. */
    final String allowed;

    private final Reader<T> reader;

    /** The rule of the value, or null for a setting whose setter checks it (nulls, pairs). */
    private Rule<T> check;

    /** Applies a value read from HOCON through the policy's validating setter. */
    private final BiFunction<BackoffPolicy, T, BackoffPolicy> apply;

    private Setting(
        String name,
        T codeDefault,
        String method,
        String meaning,
        String key,
        String allowed,
        Reader<T> reader,
        BiFunction<BackoffPolicy, T, BackoffPolicy> apply) {
      this.index = TABLE.size();
      this.name = name;
      this.codeDefault = codeDefault;
      this.method = method;
      this.meaning = meaning;
      this.key = key;
      this.allowed = allowed;
      this.reader = reader;
      this.apply = apply;
      TABLE.add(this);
    }

    /** Sets this setting's rule; called once, where the constant is made. */
    private Setting<T> checkedBy(Rule<T> rule) {
      this.check = rule;
      return this;
    }

    /** Applies this setting's rule to {@code value}, if it has one (see {@link Rule}). */
    T checked(T value) {
      if (check != null) {
        check.check(value, name);
      }
      return value;
    }

    private static void unsetOrNonNegative(Integer value, String name) {
      if (value != null) {
        Check.atLeast(value, 0, name);
      }
    }

    private static <T> Setting<T> code(String name, T codeDefault, String method, String meaning) {
      return new Setting<>(name, codeDefault, method, meaning, null, null, null, null);
    }

    /** How the value appears in the policy's {@code toString}. */
    String show(Object value) {
      if (value == null) {
        return this == MAX_RESTARTS
            ? "unlimited"
            : this == STASH_CAPACITY || this == AGGREGATED_LOGGING ? "auto" : "none";
      }
      if (value instanceof List<?> list && (this == STOP_ON || this == RESTART_ON)) {
        return list.stream().map(c -> ((Class<?>) c).getName()).toList().toString();
      }
      if (this == LISTENERS) {
        return Integer.toString(((List<?>) value).size());
      }
      return value.toString();
    }

    /** The values a policy starts with, in storage order. */
    static Object[] codeDefaults() {
      Object[] values = new Object[ALL.size()];
      for (Setting<?> setting : ALL) {
        values[setting.index] = setting.codeDefault;
      }
      return values;
    }

    /**
     * Reads a policy: {@code min-backoff} and {@code max-backoff} through {@link
     * BackoffPolicy#exponential}, then every other key through its setter, in table order. A value a
     * setter rejects is reported under the key of the setting being applied; for {@code exponential},
     * which checks two values, under the key of the parameter its exception names.
     */
    static BackoffPolicy read(PolicyConfig config) {
      Duration min = MIN_BACKOFF.reader.read(config, MIN_BACKOFF.key);
      Duration max = MAX_BACKOFF.reader.read(config, MAX_BACKOFF.key);
      BackoffPolicy policy;
      try {
        policy = BackoffPolicy.exponential(min, max);
      } catch (ParameterException e) {
        throw config.invalid(named(e.parameter()).key, e);
      }
      for (Setting<?> setting : ALL) {
        policy = setting.readInto(config, policy);
      }
      return policy;
    }

    private BackoffPolicy readInto(PolicyConfig config, BackoffPolicy policy) {
      if (apply == null) {
        return policy; // code only, or applied by exponential
      }
      T value = reader.read(config, key);
      try {
        return apply.apply(policy, value);
      } catch (IllegalArgumentException e) {
        throw config.invalid(key, e);
      }
    }

    private static Setting<?> named(String name) {
      for (Setting<?> setting : ALL) {
        if (setting.name.equals(name)) {
          return setting;
        }
      }
      throw new IllegalStateException("no setting named " + name);
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Throwable>[] array(List<Class<? extends Throwable>> types) {
      return types.toArray(new Class[0]);
    }

    private static Level level(String name) {
      return Level.valueOf(name.toUpperCase(Locale.ROOT));
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
