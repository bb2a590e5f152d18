package dev.supervision.backoff;

import com.typesafe.config.ConfigException;
import dev.supervision.backoff.internal.policy.PolicyConfig;
import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.internal.util.ParameterException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.event.Level;

/**
 * One setting of a {@link BackoffPolicy} (its Java name, HOCON key or null, what the key allows,
 * the method that sets it, its field's getter and setter in {@link Values}, its rule, which throws
 * or returns the value to store, and its reader), and the table of all of them. The policy's {@code
 * equals}, {@code hashCode}, {@code toString}, {@code fromConfig} and docs/configuration.md's key
 * table (a test checks it) derive from the table, which refers only to {@link Values}, never to the
 * policy, so the two files do not import each other. Package-private: not API.
 */
record PolicySetting<T>(
    String name,
    String key,
    String allowed,
    String method,
    Function<Values, T> get,
    BiConsumer<Values, T> set,
    UnaryOperator<T> rule,
    Reader<T> reader) {

  @FunctionalInterface
  interface Reader<T> {
    T read(PolicyConfig config, String key, String allowed);
  }

  private static final String BOOLEAN = PolicyConfig.BOOLEAN;
  private static final List<String> LEVELS = List.of("error", "warn", "info", "debug", "trace");
  private static final String LEVEL = "one of " + String.join(", ", LEVELS);
  private static final String CLASSES = "a list of Throwable class names";
  private static final Reader<Level> LEVEL_READER =
      (c, k, a) -> Level.valueOf(c.oneOf(k, LEVELS).toUpperCase(Locale.ROOT));
  private static final Reader<List<Class<? extends Throwable>>> CLASS_READER =
      (c, k, a) -> Arrays.asList(c.throwables(k));

  // configuration accepts the built-in jitters' names (their toString)
  private static final List<Jitter> JITTERS =
      List.of(Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none());
  private static final List<String> JITTER_NAMES = JITTERS.stream().map(Jitter::toString).toList();

  static final PolicySetting<Duration> MIN_BACKOFF =
      new PolicySetting<>(
          "minBackoff",
          "min-backoff",
          "a duration > 0",
          "exponential(minBackoff, maxBackoff)",
          v -> v.minBackoff,
          (v, x) -> v.minBackoff = x,
          x -> Check.delay(x, "minBackoff"),
          null);

  static final PolicySetting<Duration> MAX_BACKOFF =
      new PolicySetting<>(
          "maxBackoff",
          "max-backoff",
          "a duration >= min-backoff and <= 180d",
          "exponential(minBackoff, maxBackoff)",
          v -> v.maxBackoff,
          (v, x) -> v.maxBackoff = x,
          x -> Check.delay(x, "maxBackoff"),
          null);

  static final PolicySetting<Double> MULTIPLIER =
      new PolicySetting<>(
          "multiplier",
          "multiplier",
          "a finite number >= 1.0",
          "withMultiplier(double)",
          v -> v.multiplier,
          (v, x) -> v.multiplier = x,
          x -> {
            Check.argument(
                Double.isFinite(x) && x >= 1.0, "multiplier", "a finite number >= 1.0", x);
            return x;
          },
          (c, k, a) -> c.number(k));

  static final PolicySetting<Jitter> JITTER =
      new PolicySetting<>(
          "jitter",
          "jitter",
          "one of " + String.join(", ", JITTER_NAMES),
          "withJitter(Jitter)",
          v -> v.jitter,
          (v, x) -> v.jitter = x,
          x -> Check.nonNull(x, "jitter"),
          (c, k, a) -> JITTERS.get(JITTER_NAMES.indexOf(c.oneOf(k, JITTER_NAMES))));

  static final PolicySetting<Duration> RESET_AFTER =
      new PolicySetting<>(
          "resetAfter",
          "reset-after",
          "auto or a duration > 0",
          "withResetAfter(Duration)",
          v -> v.resetAfter,
          (v, x) -> v.resetAfter = x,
          x -> Check.delay(x, "resetAfter"),
          (c, k, a) ->
              c.isWord(k, "auto") ? null : c.duration(k, "a duration (for example 30s) or auto"));

  static final PolicySetting<Integer> MAX_RESTARTS =
      new PolicySetting<>(
          "maxRestarts",
          "max-restarts",
          "off or a whole number >= 0",
          "withMaxRestarts(int), withUnlimitedRestarts()",
          v -> v.maxRestarts,
          (v, x) -> v.maxRestarts = x,
          x -> Check.atLeast(x, 0, "maxRestarts"),
          (c, k, a) -> c.isWord(k, "off") ? null : c.integer(k, a));

  static final PolicySetting<Integer> STASH_CAPACITY =
      new PolicySetting<>(
          "stashCapacity",
          "stash-capacity",
          "auto or a whole number >= 0",
          "withStashCapacity(int)",
          v -> v.stashCapacity,
          (v, x) -> v.stashCapacity = x,
          x -> Check.atLeast(x, 0, "stashCapacity"),
          (c, k, a) -> c.isWord(k, "auto") ? null : c.integer(k, a));

  static final PolicySetting<Boolean> STOP_CHILDREN =
      flag(
          "stopChildren",
          "stop-children",
          "withStopChildren(boolean)",
          v -> v.stopChildren,
          (v, x) -> v.stopChildren = x);

  static final PolicySetting<Boolean> RESTART_ON_STOP =
      flag(
          "restartOnStop",
          "restart-on-stop",
          "withRestartOnStop(boolean)",
          v -> v.restartOnStop,
          (v, x) -> v.restartOnStop = x);

  static final PolicySetting<Predicate<Object>> FINAL_STOP_MESSAGE =
      code(
          "finalStopMessage",
          "withFinalStopMessage(Predicate)",
          v -> v.finalStopMessage,
          (v, x) -> v.finalStopMessage = x,
          x -> Check.nonNull(x, "finalStopMessage"));

  static final PolicySetting<Boolean> MANUAL_RESET =
      flag(
          "manualReset",
          "manual-reset",
          "withManualReset()",
          v -> v.manualReset,
          (v, x) -> v.manualReset = x);

  static final PolicySetting<BackoffHandler> HANDLER_WHILE_BACKING_OFF =
      code(
          "handlerWhileBackingOff",
          "withHandlerWhileBackingOff(BackoffHandler)",
          v -> v.handlerWhileBackingOff,
          (v, x) -> v.handlerWhileBackingOff = x,
          x -> Check.nonNull(x, "handler"));

  static final PolicySetting<List<Class<? extends Throwable>>> STOP_ON =
      new PolicySetting<>(
          "stopOn",
          "stop-on",
          CLASSES,
          "withStopOn(Class...)",
          v -> v.stopOn,
          (v, x) -> v.stopOn = x,
          PolicySetting::distinct,
          CLASS_READER);

  static final PolicySetting<Predicate<Throwable>> STOP_ON_PREDICATE =
      code(
          "stopOnPredicate",
          "withStopOn(Predicate)",
          v -> v.stopOnPredicate,
          (v, x) -> v.stopOnPredicate = x,
          x -> Check.nonNull(x, "stopOn"));

  static final PolicySetting<List<Class<? extends Throwable>>> RESTART_ON =
      new PolicySetting<>(
          "restartOn",
          "restart-on",
          CLASSES,
          "withRestartOn(Class...)",
          v -> v.restartOn,
          (v, x) -> v.restartOn = x,
          PolicySetting::distinct,
          CLASS_READER);

  static final PolicySetting<Long> RANDOM_SEED =
      new PolicySetting<>(
          "randomSeed",
          "random-seed",
          "off or a whole number",
          "withRandomSeed(long)",
          v -> v.randomSeed,
          (v, x) -> v.randomSeed = x,
          null,
          (c, k, a) -> c.isWord(k, "off") ? null : c.longInteger(k, a));

  static final PolicySetting<Duration> MAX_RETRY_AFTER =
      new PolicySetting<>(
          "maxRetryAfter",
          "max-retry-after",
          "a duration > 0",
          "withMaxRetryAfter(Duration)",
          v -> v.maxRetryAfter,
          (v, x) -> v.maxRetryAfter = x,
          x -> Check.delay(x, "maxRetryAfter"),
          (c, k, a) -> c.duration(k));

  static final PolicySetting<Level> LOG_LEVEL =
      new PolicySetting<>(
          "logLevel",
          "log-level",
          LEVEL,
          "withLogLevel(Level)",
          v -> v.logLevel,
          (v, x) -> v.logLevel = x,
          x -> Check.nonNull(x, "logLevel"),
          LEVEL_READER);

  static final PolicySetting<Level> CRITICAL_LOG_LEVEL =
      new PolicySetting<>(
          "criticalLogLevel",
          "critical-log-level",
          LEVEL,
          "withCriticalLogLevel(Level, int)",
          v -> v.criticalLogLevel,
          (v, x) -> v.criticalLogLevel = x,
          x -> Check.nonNull(x, "criticalLogLevel"),
          LEVEL_READER);

  static final PolicySetting<Integer> CRITICAL_LOG_LEVEL_AFTER =
      new PolicySetting<>(
          "criticalLogLevelAfter",
          "critical-log-level-after",
          "off or a whole number >= 1",
          "withCriticalLogLevel(Level, int)",
          v -> v.criticalLogLevelAfter,
          (v, x) -> v.criticalLogLevelAfter = x,
          x -> Check.atLeast(x, 1, "afterFailures"),
          (c, k, a) -> c.isWord(k, "off") ? Integer.MAX_VALUE : c.integer(k, a));

  static final PolicySetting<Boolean> LOGGING_ENABLED =
      flag(
          "loggingEnabled",
          "logging-enabled",
          "withLoggingEnabled(boolean)",
          v -> v.loggingEnabled,
          (v, x) -> v.loggingEnabled = x);

  static final PolicySetting<Boolean> AGGREGATED_LOGGING =
      new PolicySetting<>(
          "aggregatedLogging",
          "aggregate-logs",
          "auto or " + BOOLEAN,
          "withAggregatedLogging(boolean)",
          v -> v.aggregatedLogging,
          (v, x) -> v.aggregatedLogging = x,
          null,
          (c, k, a) -> c.isWord(k, "auto") ? null : c.bool(k));

  static final PolicySetting<Boolean> EVENT_STREAM_PUBLISHING =
      flag(
          "eventStreamPublishing",
          "publish-events",
          "withEventStreamPublishing(boolean)",
          v -> v.eventStreamPublishing,
          (v, x) -> v.eventStreamPublishing = x);

  static final PolicySetting<RestartBudget> BUDGET =
      new PolicySetting<>(
          "budget",
          "budget",
          "null or the name of a budget",
          "withBudget(RestartBudget), withoutBudget()",
          v -> v.budget,
          (v, x) -> v.budget = x,
          x -> Check.nonNull(x, "budget"),
          (c, k, a) -> BudgetSetting.read(c, k));

  static final PolicySetting<List<BackoffListener>> LISTENERS =
      code(
          "listeners",
          "withListener(BackoffListener)",
          v -> v.listeners,
          (v, x) -> v.listeners = x,
          null);

  /** Every setting, in the order of printing, {@code reference.conf} and the docs. */
  static final List<PolicySetting<?>> ALL =
      List.of(
          MIN_BACKOFF,
          MAX_BACKOFF,
          MULTIPLIER,
          JITTER,
          RESET_AFTER,
          MAX_RESTARTS,
          STASH_CAPACITY,
          STOP_CHILDREN,
          RESTART_ON_STOP,
          FINAL_STOP_MESSAGE,
          MANUAL_RESET,
          HANDLER_WHILE_BACKING_OFF,
          STOP_ON,
          STOP_ON_PREDICATE,
          RESTART_ON,
          RANDOM_SEED,
          MAX_RETRY_AFTER,
          LOG_LEVEL,
          CRITICAL_LOG_LEVEL,
          CRITICAL_LOG_LEVEL_AFTER,
          LOGGING_ENABLED,
          AGGREGATED_LOGGING,
          EVENT_STREAM_PUBLISHING,
          BUDGET,
          LISTENERS);

  static final List<String> KEYS;
  static final Map<String, String> ALLOWED; // what each key allows, in order

  static {
    Map<String, String> allowed = new LinkedHashMap<>();
    ALL.stream().filter(s -> s.key != null).forEach(s -> allowed.put(s.key, s.allowed));
    KEYS = List.copyOf(allowed.keySet());
    ALLOWED = Collections.unmodifiableMap(allowed);
  }

  // a setting that only code can set
  private static <T> PolicySetting<T> code(
      String name,
      String method,
      Function<Values, T> get,
      BiConsumer<Values, T> set,
      UnaryOperator<T> rule) {
    return new PolicySetting<>(name, null, null, method, get, set, rule, null);
  }

  // a boolean setting, which every value suits
  private static PolicySetting<Boolean> flag(
      String name,
      String key,
      String method,
      Function<Values, Boolean> get,
      BiConsumer<Values, Boolean> set) {
    return new PolicySetting<>(name, key, BOOLEAN, method, get, set, null, (c, k, a) -> c.bool(k));
  }

  // the rule of stop-on and restart-on: no nulls, no duplicates, in the order given
  private static List<Class<? extends Throwable>> distinct(List<Class<? extends Throwable>> types) {
    Check.nonNull(types, "types");
    for (int i = 0; i < types.size(); i++) {
      Check.nonNull(types.get(i), "types[" + i + "]");
    }
    return List.copyOf(new LinkedHashSet<>(types));
  }

  /**
   * A policy's settings with their defaults; copied to change one ({@link #with}), never changed
   * once the policy is made (its final field publishes them safely).
   */
  static final class Values implements Cloneable {
    Duration minBackoff;
    Duration maxBackoff;
    double multiplier = 2.0;
    Jitter jitter = Jitter.full();
    Duration resetAfter;
    Integer maxRestarts; // null: unlimited
    Integer stashCapacity; // null: the actor system's
    boolean stopChildren = true;
    boolean restartOnStop;
    Predicate<Object> finalStopMessage;
    boolean manualReset;
    BackoffHandler handlerWhileBackingOff;
    List<Class<? extends Throwable>> stopOn = List.of();
    Predicate<Throwable> stopOnPredicate;
    List<Class<? extends Throwable>> restartOn = List.of();
    Long randomSeed;
    Duration maxRetryAfter = Duration.ofHours(1);
    Level logLevel = Level.WARN;
    Level criticalLogLevel = Level.ERROR;
    int criticalLogLevelAfter = Integer.MAX_VALUE;
    boolean loggingEnabled = true;
    Boolean aggregatedLogging; // null: on with a budget
    boolean eventStreamPublishing;
    RestartBudget budget;
    List<BackoffListener> listeners = List.of();

    // a copy with setting set to value, after the setting's rule
    <T> Values with(PolicySetting<T> setting, T value) {
      return set(setting, setting.rule == null ? value : setting.rule.apply(value));
    }

    // a copy with setting unset: unlimited, none or auto
    Values without(PolicySetting<?> setting) {
      return set(setting, null);
    }

    private <T> Values set(PolicySetting<T> setting, T value) {
      try {
        Values copy = (Values) clone();
        setting.set.accept(copy, value);
        return copy;
      } catch (CloneNotSupportedException e) {
        throw new AssertionError(e);
      }
    }
  }

  // the defaults, with the reset window between the two
  static Values exponential(Duration minBackoff, Duration maxBackoff) {
    MIN_BACKOFF.rule.apply(minBackoff);
    MAX_BACKOFF.rule.apply(maxBackoff);
    Check.argument(
        maxBackoff.compareTo(minBackoff) >= 0,
        "maxBackoff",
        ">= minBackoff (" + minBackoff + ")",
        maxBackoff);
    Values values = new Values();
    values.minBackoff = minBackoff;
    values.maxBackoff = maxBackoff;
    values.resetAfter = minBackoff.plus(maxBackoff).dividedBy(2);
    return values;
  }

  static boolean equal(Values a, Values b) {
    return ALL.stream().allMatch(s -> Objects.equals(s.get.apply(a), s.get.apply(b)));
  }

  static int hash(Values values) {
    return Arrays.hashCode(ALL.stream().map(s -> s.get.apply(values)).toArray());
  }

  // {minBackoff=PT0.1S, ...}
  static String show(Values values) {
    StringJoiner joiner = new StringJoiner(", ", "{", "}");
    ALL.forEach(s -> joiner.add(s.name + "=" + s.show(s.get.apply(values))));
    return joiner.toString();
  }

  private String show(Object value) {
    if (value == null) {
      return this == MAX_RESTARTS
          ? "unlimited"
          : this == STASH_CAPACITY || this == AGGREGATED_LOGGING ? "auto" : "none";
    }
    if (this == LISTENERS) {
      return Integer.toString(((List<?>) value).size());
    }
    if (value instanceof List<?> types) {
      return types.stream().map(c -> ((Class<?>) c).getName()).toList().toString();
    }
    return value.toString();
  }

  // min- and max-backoff through exponential (a rejection under the key its parameter names), then
  // every key in table order; where names the block in messages
  static Values read(Supplier<PolicyConfig> block, String where) {
    try {
      PolicyConfig config = block.get();
      Duration min = config.duration(MIN_BACKOFF.key);
      Duration max = config.duration(MAX_BACKOFF.key);
      Values values;
      try {
        values = exponential(min, max);
      } catch (ParameterException e) {
        throw config.invalid(
            e.parameter().equals(MIN_BACKOFF.name) ? MIN_BACKOFF.key : MAX_BACKOFF.key, e);
      }
      for (PolicySetting<?> setting : ALL) {
        values = setting.readInto(config, values);
      }
      return values;
    } catch (ConfigException.NotResolved e) {
      throw new IllegalArgumentException(
          where
              + ": the config is not resolved (call resolve() on it first; ConfigFactory.load() and"
              + " an actor system's settings are resolved): "
              + e.getMessage(),
          e);
    }
  }

  private Values readInto(PolicyConfig config, Values values) {
    if (reader == null) {
      return values;
    }
    T value = reader.read(config, key, allowed);
    return value == null ? values : config.apply(values, key, v -> v.with(this, value));
  }
}
