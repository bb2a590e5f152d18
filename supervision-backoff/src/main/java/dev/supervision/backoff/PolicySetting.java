package dev.supervision.backoff;

import dev.supervision.backoff.internal.policy.PolicyConfig;
import dev.supervision.backoff.internal.util.ParameterException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import org.slf4j.event.Level;

/**
 * One setting of a {@link BackoffPolicy}, and the table of all of them: the one place where a
 * setting is written. A policy stores its values in the order of {@link #ALL}; its {@code equals},
 * {@code hashCode} and {@code toString}, {@link BackoffPolicy#fromConfig(com.typesafe.config.Config,
 * String) fromConfig} and the key table of the configuration documentation all derive from this
 * table. Adding a setting is a constant here, its {@code withX}/{@code getX} pair on the policy, its
 * line in {@code reference.conf} (a test checks it) and its test.
 *
 * <p>Package-private: not API.
 *
 * @param <T> the type of the stored value; {@code null} is a value (unset, none, off, auto) where
 *     the setting allows it
 */
final class PolicySetting<T> {

  /** How a setting's value is read from its key: a method of {@link PolicyConfig}. */
  @FunctionalInterface
  interface Reader<T> {
    T read(PolicyConfig config, String key);
  }

  private static final List<PolicySetting<?>> TABLE = new ArrayList<>();
  private static final List<String> LEVELS = List.of("error", "warn", "info", "debug", "trace");
  private static final String LEVEL = "one of error, warn, info, debug, trace";
  private static final String CLASSES = "a list of Throwable class names";
  private static final String MULTIPLIER_RULE = "a finite number >= 1.0";

  /**
   * A setting's rule: throws, naming the parameter {@code name} and the value, if {@code value}
   * breaks it. Applied by {@link BackoffPolicy#with} to every value set, so a {@code withX} method
   * that has no other argument to check only delegates.
   */
  @FunctionalInterface
  interface Check<T> {
    void check(T value, String name);
  }

  static final PolicySetting<Duration> MIN_BACKOFF =
      new PolicySetting<>(
          "minBackoff",
          null,
          "exponential(minBackoff, maxBackoff)",
          "The bound of the first restart's delay.",
          "min-backoff",
          "a duration > 0",
          PolicyConfig::duration,
          null);

  static final PolicySetting<Duration> MAX_BACKOFF =
      new PolicySetting<>(
          "maxBackoff",
          null,
          "exponential(minBackoff, maxBackoff)",
          "The hard cap of every delay; only a Retry-After hint may exceed it.",
          "max-backoff",
          "a duration >= min-backoff and <= 180d",
          PolicyConfig::duration,
          null);

  static final PolicySetting<Double> MULTIPLIER =
      new PolicySetting<>(
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
                  Require.argument(
                      !Double.isNaN(v) && !Double.isInfinite(v) && v >= 1.0,
                      n,
                      MULTIPLIER_RULE,
                      v));

  static final PolicySetting<Jitter> JITTER =
      new PolicySetting<>(
          "jitter",
          Jitter.full(),
          "withJitter(Jitter)",
          "How the bound becomes a delay; code may pass its own Jitter.",
          "jitter",
          "one of " + String.join(", ", BuiltInJitter.NAMES),
          (c, k) -> BuiltInJitter.named(c.oneOf(k, BuiltInJitter.NAMES)),
          BackoffPolicy::withJitter);

  static final PolicySetting<Duration> RESET_AFTER =
      new PolicySetting<>(
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
          .checkedBy(Require::positive);

  static final PolicySetting<Integer> MAX_RESTARTS =
      new PolicySetting<>(
              "maxRestarts",
              null,
              "withMaxRestarts(int), withUnlimitedRestarts()",
              "Restarts allowed between two resets before the actor is stopped; 0 stops on the first"
                  + " failure; off is unlimited.",
              "max-restarts",
              "off or a whole number >= 0",
              (c, k) -> c.isWord(k, "off") ? null : c.integer(k, "off or a whole number >= 0"),
              (p, v) -> v == null ? p.withUnlimitedRestarts() : p.withMaxRestarts(v))
          .checkedBy(PolicySetting::unsetOrNonNegative);

  static final PolicySetting<Integer> STASH_CAPACITY =
      new PolicySetting<>(
              "stashCapacity",
              null,
              "withStashCapacity(int)",
              "Messages kept while the actor waits for its restart (the rest are published as Dropped);"
                  + " auto is the actor system's pekko.actor.typed.restart-stash-capacity, as Pekko.",
              "stash-capacity",
              "auto or a whole number >= 0",
              (c, k) -> c.isWord(k, "auto") ? null : c.integer(k, "auto or a whole number >= 0"),
              (p, v) ->
                  v == null ? p.with(PolicySetting.STASH_CAPACITY, null) : p.withStashCapacity(v))
          .checkedBy(PolicySetting::unsetOrNonNegative);

  static final PolicySetting<Boolean> STOP_CHILDREN =
      new PolicySetting<>(
          "stopChildren",
          true,
          "withStopChildren(boolean)",
          "Whether the children of a failed actor are stopped before it restarts, as Pekko; with off"
              + " they survive and the restart does not wait for them.",
          "stop-children",
          PolicyConfig.BOOLEAN,
          PolicyConfig::bool,
          BackoffPolicy::withStopChildren);

  static final PolicySetting<Boolean> RESTART_ON_STOP =
      new PolicySetting<>(
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

  static final PolicySetting<Predicate<Object>> FINAL_STOP_MESSAGE =
      code(
          "finalStopMessage",
          null,
          "withFinalStopMessage(Predicate)",
          "With restart-on-stop: a stop after a message matching it is final; during a backoff such"
              + " a message stops the actor at once.");

  static final PolicySetting<Boolean> MANUAL_RESET =
      new PolicySetting<>(
          "manualReset",
          false,
          "withManualReset()",
          "Whether only BackoffSupervisor.resetBackoff(ctx), called by the child, resets the restart"
              + " count; with on, reset-after no longer does.",
          "manual-reset",
          PolicyConfig.BOOLEAN,
          PolicyConfig::bool,
          (p, v) -> v ? p.withManualReset() : p.with(PolicySetting.MANUAL_RESET, false));

  static final PolicySetting<BackoffHandler> HANDLER_WHILE_BACKING_OFF =
      code(
          "handlerWhileBackingOff",
          null,
          "withHandlerWhileBackingOff(BackoffHandler)",
          "Sees every message that arrives during a backoff; true means it answered it (not"
              + " stashed).");

  static final PolicySetting<List<Class<? extends Throwable>>> STOP_ON =
      new PolicySetting<>(
          "stopOn",
          List.of(),
          "withStopOn(Class...)",
          "Failures that stop the actor at once (the failure or a cause in its chain is an instance"
              + " of one); stop rules win over restart-on.",
          "stop-on",
          CLASSES,
          (c, k) -> List.of(c.throwables(k)),
          (p, v) -> p.withStopOn(array(v)));

  static final PolicySetting<Predicate<Throwable>> STOP_ON_PREDICATE =
      code(
          "stopOnPredicate",
          null,
          "withStopOn(Predicate)",
          "A rule that makes failures permanent, tested on each throwable of the cause chain.");

  static final PolicySetting<List<Class<? extends Throwable>>> RESTART_ON =
      new PolicySetting<>(
          "restartOn",
          List.of(),
          "withRestartOn(Class...)",
          "If not empty, only these failures (or failures with one in their cause chain) are"
              + " restarted; any other stops the actor at once.",
          "restart-on",
          CLASSES,
          (c, k) -> List.of(c.throwables(k)),
          (p, v) -> p.withRestartOn(array(v)));

  static final PolicySetting<Long> RANDOM_SEED =
      new PolicySetting<>(
          "randomSeed",
          null,
          "withRandomSeed(long)",
          "A seed that makes the delays reproducible per actor path; off lets each actor seed its"
              + " own generator.",
          "random-seed",
          "off or a whole number",
          (c, k) -> c.isWord(k, "off") ? null : c.longInteger(k, "off or a whole number"),
          (p, v) -> v == null ? p.with(PolicySetting.RANDOM_SEED, null) : p.withRandomSeed(v));

  static final PolicySetting<Duration> MAX_RETRY_AFTER =
      new PolicySetting<>(
              "maxRetryAfter",
              Duration.ofHours(1),
              "withMaxRetryAfter(Duration)",
              "The longest delay that a RetryAfter hint on a failure may ask for.",
              "max-retry-after",
              "a duration > 0",
              PolicyConfig::duration,
              BackoffPolicy::withMaxRetryAfter)
          .checkedBy(Require::positive);

  static final PolicySetting<Level> LOG_LEVEL =
      new PolicySetting<>(
          "logLevel",
          Level.WARN,
          "withLogLevel(Level)",
          "The level of the log line for a failure that is restarted (Pekko logs at ERROR).",
          "log-level",
          LEVEL,
          (c, k) -> level(c.oneOf(k, LEVELS)),
          BackoffPolicy::withLogLevel);

  static final PolicySetting<Level> CRITICAL_LOG_LEVEL =
      new PolicySetting<>(
          "criticalLogLevel",
          Level.ERROR,
          "withCriticalLogLevel(Level, int)",
          "The level used once an actor failed more than critical-log-level-after times in a row.",
          "critical-log-level",
          LEVEL,
          (c, k) -> level(c.oneOf(k, LEVELS)),
          (p, v) -> p.withCriticalLogLevel(v, p.getCriticalLogLevelAfter()));

  static final PolicySetting<Integer> CRITICAL_LOG_LEVEL_AFTER =
      new PolicySetting<>(
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

  static final PolicySetting<Boolean> LOGGING_ENABLED =
      new PolicySetting<>(
          "loggingEnabled",
          true,
          "withLoggingEnabled(boolean)",
          "Whether the supervisor writes log lines at all (events are reported either way).",
          "logging-enabled",
          PolicyConfig.BOOLEAN,
          PolicyConfig::bool,
          BackoffPolicy::withLoggingEnabled);

  static final PolicySetting<Boolean> AGGREGATED_LOGGING =
      new PolicySetting<>(
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
              v == null
                  ? p.with(PolicySetting.AGGREGATED_LOGGING, null)
                  : p.withAggregatedLogging(v));

  static final PolicySetting<Boolean> EVENT_STREAM_PUBLISHING =
      new PolicySetting<>(
          "eventStreamPublishing",
          false,
          "withEventStreamPublishing(boolean)",
          "Whether every BackoffEvent is also published on the actor system's event stream.",
          "publish-events",
          PolicyConfig.BOOLEAN,
          PolicyConfig::bool,
          BackoffPolicy::withEventStreamPublishing);

  static final PolicySetting<RestartBudget> BUDGET =
      new PolicySetting<>(
          "budget",
          null,
          "withBudget(RestartBudget), withoutBudget()",
          "The name of a restart budget shared by a group of actors, defined at"
              + " `supervision-backoff.budgets.<name>`; null for none.",
          "budget",
          "null or the name of a budget",
          BudgetSetting::read,
          (p, v) -> v == null ? p.withoutBudget() : p.withBudget(v));

  static final PolicySetting<List<BackoffListener>> LISTENERS =
      code(
          "listeners",
          List.of(),
          "withListener(BackoffListener)",
          "Listeners that receive every BackoffEvent, in the order they were added.");

  /** Every setting, in the order of storage, printing, {@code reference.conf} and the docs. */
  static final List<PolicySetting<?>> ALL = Collections.unmodifiableList(TABLE);

  /** The keys of a policy block, in order. */
  static final List<String> KEYS;

  /** What each key allows, for the messages about a null or missing value. */
  static final Map<String, String> ALLOWED;

  static {
    List<String> keys = new ArrayList<>();
    Map<String, String> allowed = new LinkedHashMap<>();
    for (PolicySetting<?> setting : ALL) {
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
  private Check<T> check;

  /** Applies a value read from HOCON through the policy's validating setter. */
  private final BiFunction<BackoffPolicy, T, BackoffPolicy> apply;

  private PolicySetting(
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
  private PolicySetting<T> checkedBy(Check<T> rule) {
    this.check = rule;
    return this;
  }

  /** Applies this setting's rule to {@code value}, if it has one (see {@link Check}). */
  T checked(T value) {
    if (check != null) {
      check.check(value, name);
    }
    return value;
  }

  private static void unsetOrNonNegative(Integer value, String name) {
    if (value != null) {
      Require.nonNegative(value, name);
    }
  }

  private static <T> PolicySetting<T> code(
      String name, T codeDefault, String method, String meaning) {
    return new PolicySetting<>(name, codeDefault, method, meaning, null, null, null, null);
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
    for (PolicySetting<?> setting : ALL) {
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
    for (PolicySetting<?> setting : ALL) {
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

  private static PolicySetting<?> named(String name) {
    for (PolicySetting<?> setting : ALL) {
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
