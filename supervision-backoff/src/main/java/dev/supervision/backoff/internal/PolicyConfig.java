package dev.supervision.backoff.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;
import org.slf4j.event.Level;

/**
 * INTERNAL API: reads a {@link BackoffPolicy} from a HOCON block, behind {@code
 * BackoffPolicy.fromConfig}.
 *
 * <p>Every key the block leaves out is taken from {@value #DEFAULTS_PATH}: first from the root
 * config given (so an application can change the defaults of all its policies in {@code
 * application.conf}), then from the library's {@code reference.conf}. A bad value fails with an
 * {@link IllegalArgumentException} whose message starts with the full path of the setting that
 * holds it (the block's path, or {@value #DEFAULTS_PATH} when the bad value is a default), then the
 * value as written in HOCON, then what is allowed; for example {@code
 * my-service.worker-backoff.jitter: "fulll" is not one of full, equal, decorrelated, none}. Keys
 * that are not settings are rejected too, since they are almost always typos.
 *
 * <p>{@code budget} names a {@link RestartBudget} defined at {@value #BUDGETS_PATH}{@code .<name>}
 * in the root config, with defaults from {@value #BUDGET_DEFAULTS_PATH}; its values are checked the
 * same way.
 */
public final class PolicyConfig {

  /** Where the library's defaults live, in {@code reference.conf} and, optionally, overridden. */
  public static final String DEFAULTS_PATH = "supervision-backoff.default-policy";

  /** Where restart budgets are defined, one block per name. */
  public static final String BUDGETS_PATH = "supervision-backoff.budgets";

  /** The defaults of every budget block. */
  public static final String BUDGET_DEFAULTS_PATH = "supervision-backoff.default-budget";

  /** Every key of a budget block. */
  public static final List<String> BUDGET_KEYS =
      List.of("mode", "permits", "period", "burst", "cluster-wide", "probation", "hold-after");

  /** Every key of a policy block, in the order of {@code reference.conf}. */
  public static final List<String> KEYS =
      List.of(
          "min-backoff",
          "max-backoff",
          "multiplier",
          "jitter",
          "reset-after",
          "max-restarts",
          "stash-capacity",
          "random-seed",
          "max-retry-after",
          "log-level",
          "critical-log-level",
          "critical-log-level-after",
          "logging-enabled",
          "publish-events",
          "budget");

  /** What each key that must not be null allows, for the message about a null value. */
  private static final Map<String, String> NON_NULL =
      Map.ofEntries(
          Map.entry("min-backoff", "a duration > 0"),
          Map.entry("max-backoff", "a duration >= min-backoff and <= 180d"),
          Map.entry("multiplier", "a finite number >= 1.0"),
          Map.entry("jitter", "one of full, equal, decorrelated, none"),
          Map.entry("reset-after", "auto or a duration > 0"),
          Map.entry("max-restarts", "off or a whole number >= 0"),
          Map.entry("stash-capacity", "a whole number >= 0"),
          Map.entry("random-seed", "off or a whole number"),
          Map.entry("max-retry-after", "a duration > 0"),
          Map.entry("log-level", "one of error, warn, info, debug, trace"),
          Map.entry("critical-log-level", "one of error, warn, info, debug, trace"),
          Map.entry("critical-log-level-after", "off or a whole number >= 1"),
          Map.entry("logging-enabled", "one of on, off, true, false, yes, no"),
          Map.entry("publish-events", "one of on, off, true, false, yes, no"),
          Map.entry("permits", "a whole number >= 1"),
          Map.entry("period", "a duration >= 10ms"),
          Map.entry("burst", "auto or a whole number >= 1"),
          Map.entry("cluster-wide", "one of on, off, true, false, yes, no"),
          Map.entry("mode", "one of fixed, adaptive"),
          Map.entry("probation", "a duration between 1ms and 1m"),
          Map.entry("hold-after", "a whole number >= 1"));

  private static final List<String> JITTERS = List.of("full", "equal", "decorrelated", "none");
  private static final List<String> LEVELS = List.of("error", "warn", "info", "debug", "trace");

  /** The whole config, where budgets are defined; null when only a block was given. */
  private final Config root;
  private final Config block;
  private final Config defaults;
  private final String prefix;
  private final String defaultsPath;
  private final List<String> keys;

  private PolicyConfig(
      Config root, Config block, Config defaults, String prefix, String defaultsPath, List<String> keys) {
    this.root = root;
    this.block = block;
    this.defaults = defaults;
    this.prefix = prefix;
    this.defaultsPath = defaultsPath;
    this.keys = keys;
  }

  /**
   * Reads a block whose path in the application's config is not known: messages name the key
   * relative to the block and where its value came from (file and line when it came from a file).
   *
   * @param block the policy block
   * @return the policy
   * @throws NullPointerException if {@code block} is {@code null}
   * @throws IllegalArgumentException if a key is unknown, a value is not allowed, or the block
   *     names a budget (which only the root config can define)
   */
  public static BackoffPolicy read(Config block) {
    Objects.requireNonNull(block, "config must not be null");
    return new PolicyConfig(null, block, library(DEFAULTS_PATH), "", DEFAULTS_PATH, KEYS).parse();
  }

  /**
   * Reads the block at {@code path} in {@code root}; messages name the full path. Defaults come
   * from {@code root}'s {@value #DEFAULTS_PATH} if it has one, then from the library's {@code
   * reference.conf}.
   *
   * @param root the whole config, for example {@code system.settings().config()}
   * @param path the path of the policy block in {@code root}
   * @return the policy
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if there is no block at {@code path}, a key is unknown, a
   *     value is not allowed, or the budget it names is not defined or not valid
   */
  public static BackoffPolicy read(Config root, String path) {
    Objects.requireNonNull(root, "root must not be null");
    Objects.requireNonNull(path, "path must not be null");
    Config block = block(root, path);
    return new PolicyConfig(root, block, defaults(root, DEFAULTS_PATH), path + ".", DEFAULTS_PATH, KEYS)
        .parse();
  }

  /** The defaults at {@code path}: the root's, if it has them, over the library's. */
  private static Config defaults(Config root, String path) {
    Config defaults = library(path);
    if (root.hasPathOrNull(path)) {
      defaults = block(root, path).withFallback(defaults);
    }
    return defaults;
  }

  private static Config block(Config root, String path) {
    try {
      return root.getConfig(path);
    } catch (ConfigException.BadPath e) {
      throw new IllegalArgumentException("\"" + path + "\" is not a valid config path: " + e.getMessage(), e);
    } catch (ConfigException.Null e) {
      throw new IllegalArgumentException(path + ": null is not a backoff policy block { ... }", e);
    } catch (ConfigException.Missing e) {
      throw new IllegalArgumentException(path + ": missing; expected a backoff policy block { ... }", e);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(
          path + ": " + render(root.getValue(path)) + " is not a backoff policy block { ... }", e);
    }
  }

  private static Config library(String path) {
    // cached by ConfigFactory per class loader
    return ConfigFactory.defaultReference(PolicyConfig.class.getClassLoader()).getConfig(path);
  }

  // ---------------------------------------------------------------- parsing

  private void rejectUnknownKeys(String what) {
    TreeSet<String> unknown = new TreeSet<>(block.root().keySet());
    keys.forEach(unknown::remove);
    if (!unknown.isEmpty()) {
      String key = unknown.first();
      throw new IllegalArgumentException(
          where(key, block) + ": unknown setting; " + what + " has only " + String.join(", ", keys));
    }
  }

  private BackoffPolicy parse() {
    rejectUnknownKeys("a backoff policy block");
    Duration min = duration("min-backoff");
    Duration max = duration("max-backoff");
    BackoffPolicy policy;
    try {
      policy = BackoffPolicy.exponential(min, max);
    } catch (IllegalArgumentException e) {
      // Require names the parameter first: "minBackoff must be ..." or "maxBackoff must be ..."
      throw invalid(e.getMessage().startsWith("minBackoff") ? "min-backoff" : "max-backoff", e);
    }
    double multiplier = number("multiplier");
    policy = apply(policy, "multiplier", p -> p.withMultiplier(multiplier));
    Jitter jitter = jitter(oneOf("jitter", JITTERS));
    policy = policy.withJitter(jitter);
    if (!isWord("reset-after", "auto")) {
      Duration resetAfter = duration("reset-after", "a duration (for example 30s) or auto");
      policy = apply(policy, "reset-after", p -> p.withResetAfter(resetAfter));
    }
    if (!isWord("max-restarts", "off")) {
      int maxRestarts = integer("max-restarts", "off or a whole number >= 0");
      policy = apply(policy, "max-restarts", p -> p.withMaxRestarts(maxRestarts));
    }
    int stashCapacity = integer("stash-capacity", "a whole number >= 0");
    policy = apply(policy, "stash-capacity", p -> p.withStashCapacity(stashCapacity));
    if (!isWord("random-seed", "off")) {
      long seed = longInteger("random-seed", "off or a whole number");
      policy = policy.withRandomSeed(seed);
    }
    Duration maxRetryAfter = duration("max-retry-after");
    policy = apply(policy, "max-retry-after", p -> p.withMaxRetryAfter(maxRetryAfter));
    policy = policy.withLogLevel(level(oneOf("log-level", LEVELS)));
    Level critical = level(oneOf("critical-log-level", LEVELS));
    if (isWord("critical-log-level-after", "off")) {
      policy = policy.withCriticalLogLevel(critical, Integer.MAX_VALUE);
    } else {
      int after = integer("critical-log-level-after", "off or a whole number >= 1");
      policy = apply(policy, "critical-log-level-after", p -> p.withCriticalLogLevel(critical, after));
    }
    policy = policy.withLoggingEnabled(bool("logging-enabled"));
    policy = policy.withEventStreamPublishing(bool("publish-events"));
    RestartBudget budget = budget();
    return budget == null ? policy : policy.withBudget(budget);
  }

  private RestartBudget budget() {
    Config source = source("budget");
    if (!source.hasPath("budget")) {
      return null; // absent or null
    }
    ConfigValue value = source.getValue("budget");
    Object raw = value.unwrapped();
    if (value.valueType() != ConfigValueType.STRING || ((String) raw).isBlank()) {
      throw bad("budget", "is not a restart budget's name (a non-empty string) or null");
    }
    String name = ((String) raw).trim();
    if (root == null) {
      throw bad("budget", "cannot be looked up: budgets are defined at " + BUDGETS_PATH
          + ".<name>, which only BackoffPolicy.fromConfig(root, path) can see");
    }
    String path = ConfigUtil.joinPath("supervision-backoff", "budgets", name);
    if (!root.hasPathOrNull(path)) {
      throw bad("budget", "is not defined: expected " + path + " { permits = ..., period = ... }");
    }
    return new PolicyConfig(
            root, block(root, path), defaults(root, BUDGET_DEFAULTS_PATH), path + ".",
            BUDGET_DEFAULTS_PATH, BUDGET_KEYS)
        .parseBudget(name);
  }

  private RestartBudget parseBudget(String name) {
    rejectUnknownKeys("a restart budget block");
    if (oneOf("mode", List.of("fixed", "adaptive")).equals("adaptive")) {
      return parseAdaptiveBudget(name);
    }
    int permits = integer("permits", "a whole number >= 1");
    Duration period = duration("period");
    RestartBudget budget;
    try {
      budget = RestartBudget.of(name, permits, period);
    } catch (IllegalArgumentException e) {
      // Require names the parameter first: "permits must be ..." or "period must be ..."
      throw invalid(e.getMessage().startsWith("permits") ? "permits" : "period", e);
    }
    if (!isWord("burst", "auto")) {
      int burst = integer("burst", "auto or a whole number >= 1");
      budget = apply(budget, "burst", b -> b.withBurst(burst));
    }
    return bool("cluster-wide") ? budget.clusterWide() : budget;
  }

  /** An adaptive budget: permits and period, if given, are its ceiling. */
  private RestartBudget parseAdaptiveBudget(String name) {
    RestartBudget budget = RestartBudget.adaptive(name);
    Duration probation = duration("probation", NON_NULL.get("probation"));
    budget = apply(budget, "probation", b -> b.withProbation(probation));
    int holdAfter = integer("hold-after", NON_NULL.get("hold-after"));
    budget = apply(budget, "hold-after", b -> b.withHoldAfter(holdAfter));
    boolean hasPermits = block.hasPath("permits");
    if (hasPermits != block.hasPath("period")) {
      throw bad(hasPermits ? "permits" : "period",
          "needs " + (hasPermits ? "period" : "permits") + " beside it: together they set an adaptive budget's ceiling");
    }
    if (hasPermits) {
      int permits = integer("permits", NON_NULL.get("permits"));
      Duration period = duration("period");
      // permits alone first (with a period known to be valid), so that each error names its key
      apply(budget, "permits", b -> b.withMaxRate(permits, Duration.ofSeconds(1)));
      budget = apply(budget, "period", b -> b.withMaxRate(permits, period));
      if (!isWord("burst", "auto")) {
        int burst = integer("burst", "auto or a whole number >= 1");
        budget = apply(budget, "burst", b -> b.withBurst(burst));
      }
    }
    return bool("cluster-wide") ? budget.clusterWide() : budget;
  }

  // ---------------------------------------------------------------- one value

  /** The config that holds {@code key}: the block if it has the key (even as null), else the defaults. */
  private Config source(String key) {
    if (block.hasPathOrNull(key)) {
      return block;
    }
    if (defaults.hasPathOrNull(key)) {
      return defaults;
    }
    throw new IllegalArgumentException(where(key, block) + ": missing; expected " + NON_NULL.get(key));
  }

  /** The full path of {@code key} as the message should name it. */
  private String where(String key, Config source) {
    if (source != block) {
      return defaultsPath + "." + key;
    }
    if (!prefix.isEmpty()) {
      return prefix + key;
    }
    ConfigValue value = block.hasPathOrNull(key) ? block.root().get(key) : null;
    return value == null ? key : key + " (" + value.origin().description() + ")";
  }

  private ConfigValue raw(String key) {
    Config source = source(key);
    if (source.getIsNull(key)) {
      throw new IllegalArgumentException(where(key, source) + ": null is not " + NON_NULL.get(key));
    }
    return source.getValue(key);
  }

  private IllegalArgumentException bad(String key, String problem) {
    Config source = source(key);
    String value = source.getIsNull(key) ? "null" : render(source.getValue(key));
    return new IllegalArgumentException(where(key, source) + ": " + value + " " + problem);
  }

  private IllegalArgumentException invalid(String key, IllegalArgumentException rule) {
    IllegalArgumentException e = bad(key, "is not allowed: " + rule.getMessage());
    e.initCause(rule);
    return e;
  }

  private <T> T apply(T value, String key, Function<T, T> change) {
    try {
      return change.apply(value);
    } catch (IllegalArgumentException e) {
      throw invalid(key, e);
    }
  }

  private static String render(ConfigValue value) {
    return value.render(ConfigRenderOptions.concise());
  }

  private boolean isWord(String key, String word) {
    ConfigValue value = raw(key);
    return value.valueType() == ConfigValueType.STRING
        && word.equalsIgnoreCase(((String) value.unwrapped()).trim());
  }

  private Duration duration(String key) {
    return duration(key, "a duration (for example 100ms, 2s, 1m)");
  }

  private Duration duration(String key, String allowed) {
    raw(key);
    try {
      return source(key).getDuration(key);
    } catch (ConfigException e) {
      throw bad(key, "is not " + allowed);
    }
  }

  private double number(String key) {
    raw(key);
    try {
      return source(key).getDouble(key);
    } catch (ConfigException e) {
      throw bad(key, "is not a number");
    }
  }

  private int integer(String key, String allowed) {
    ConfigValue value = raw(key);
    if (!isIntegral(value)) {
      throw bad(key, "is not " + allowed);
    }
    try {
      return source(key).getInt(key);
    } catch (ConfigException e) {
      throw bad(key, "is not " + allowed);
    }
  }

  private long longInteger(String key, String allowed) {
    ConfigValue value = raw(key);
    if (!isIntegral(value)) {
      throw bad(key, "is not " + allowed);
    }
    try {
      return source(key).getLong(key);
    } catch (ConfigException e) {
      throw bad(key, "is not " + allowed);
    }
  }

  /** A whole number, or a string that spells one (HOCON converts those); never 1.5. */
  private static boolean isIntegral(ConfigValue value) {
    Object raw = value.unwrapped();
    if (raw instanceof Integer || raw instanceof Long) {
      return true;
    }
    return raw instanceof String && ((String) raw).trim().matches("[-+]?\\d+");
  }

  private boolean bool(String key) {
    raw(key);
    try {
      return source(key).getBoolean(key);
    } catch (ConfigException e) {
      throw bad(key, "is not one of on, off, true, false, yes, no");
    }
  }

  private String oneOf(String key, List<String> allowed) {
    ConfigValue value = raw(key);
    if (value.valueType() == ConfigValueType.STRING) {
      String word = ((String) value.unwrapped()).trim().toLowerCase(Locale.ROOT);
      if (allowed.contains(word)) {
        return word;
      }
    }
    throw bad(key, "is not one of " + String.join(", ", allowed));
  }

  private static Jitter jitter(String name) {
    switch (name) {
      case "full":
        return Jitter.full();
      case "equal":
        return Jitter.equal();
      case "decorrelated":
        return Jitter.decorrelated();
      default:
        return Jitter.none();
    }
  }

  private static Level level(String name) {
    return Level.valueOf(name.toUpperCase(Locale.ROOT));
  }
}
