package dev.supervision.backoff.internal.policy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * INTERNAL API: reads one HOCON block (a policy's or a budget's) with messages that name the
 * setting at fault. Missing keys come from the defaults path, first in the root config, then in
 * {@code reference.conf}; unknown keys (almost always typos) are rejected. The settings tables give
 * it the keys, as an ordered map of key to what it allows.
 */
public final class PolicyConfig {

  /** Where the library's defaults live. */
  public static final String DEFAULTS_PATH = "supervision-backoff.default-policy";

  public static final String BUDGETS_PATH = "supervision-backoff.budgets";
  public static final String BUDGET_DEFAULTS_PATH = "supervision-backoff.default-budget";
  public static final String BOOLEAN = "one of on, off, true, false, yes, no";

  private static final String POLICY_BLOCK = "a backoff policy block { ... }";
  private static final String BUDGET_BLOCK =
      "a restart budget block { permits = ..., period = ... }";
  private static final String BUDGET_DEFAULTS_BLOCK = "a block of restart budget defaults { ... }";

  // where budgets are defined; null when only a block was given
  private final Config root;
  private final Config block;
  private final Config defaults;
  private final String prefix;
  private final String defaultsPath;
  // every key of the block, in order, and what it allows
  private final Map<String, String> allowed;

  // rejects a key of block that is not one of allowed's
  private PolicyConfig(
      Config root,
      Config block,
      Config defaults,
      String prefix,
      String defaultsPath,
      Map<String, String> allowed,
      String what) {
    this.root = root;
    this.block = block;
    this.defaults = defaults;
    this.prefix = prefix;
    this.defaultsPath = defaultsPath;
    this.allowed = allowed;
    rejectUnknownKeys(block, allowed, what, key -> where(key, block));
  }

  // a block alone: messages name the key and its origin; defaults from reference.conf
  public static PolicyConfig policy(Config block, Map<String, String> allowed) {
    Objects.requireNonNull(block, "config must not be null");
    return new PolicyConfig(
        null, block, library(DEFAULTS_PATH), "", DEFAULTS_PATH, allowed, POLICY_BLOCK);
  }

  // the block at path in root; defaults from root, then reference.conf
  public static PolicyConfig policy(Config root, String path, Map<String, String> allowed) {
    Objects.requireNonNull(root, "root must not be null");
    Objects.requireNonNull(path, "path must not be null");
    return inRoot(root, path, POLICY_BLOCK, DEFAULTS_PATH, POLICY_BLOCK, allowed);
  }

  private static PolicyConfig inRoot(
      Config root,
      String path,
      String what,
      String defaultsPath,
      String defaultsWhat,
      Map<String, String> allowed) {
    return new PolicyConfig(
        root,
        block(root, path, what),
        defaults(root, defaultsPath, allowed, defaultsWhat),
        path + ".",
        defaultsPath,
        allowed,
        what);
  }

  // root's defaults (only known keys: a typo would change nothing) over the library's
  private static Config defaults(
      Config root, String path, Map<String, String> allowed, String what) {
    Config defaults = library(path);
    if (find(root, path, what) != null) {
      Config own = block(root, path, what);
      rejectUnknownKeys(own, allowed, what, key -> path + "." + ConfigUtil.joinPath(key));
      defaults = own.withFallback(defaults);
    }
    return defaults;
  }

  // the value at path, or null; explains a path through a non-block instead of throwing
  private static ConfigValue find(Config root, String path, String what) {
    List<String> elements;
    try {
      elements = ConfigUtil.splitPath(path);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(
          "\"" + path + "\" is not a valid config path: " + e.getMessage(), e);
    }
    ConfigValue value = root.root();
    for (int i = 0; i < elements.size(); i++) {
      if (value.valueType() != ConfigValueType.OBJECT) {
        String parent = ConfigUtil.joinPath(elements.subList(0, i));
        String shown = value.valueType() == ConfigValueType.NULL ? "null" : render(value);
        throw new IllegalArgumentException(
            "%s: %s is %s, not a block { ... }, so it cannot hold %s"
                .formatted(path, parent, shown, what));
      }
      value = ((ConfigObject) value).get(elements.get(i));
      if (value == null) {
        return null;
      }
    }
    return value;
  }

  /** The block at {@code path}; an IllegalArgumentException naming the path if it is not one. */
  private static Config block(Config root, String path, String what) {
    ConfigValue value = find(root, path, what);
    if (value == null) {
      throw new IllegalArgumentException(path + ": missing; expected " + what);
    }
    if (value.valueType() == ConfigValueType.NULL) {
      throw new IllegalArgumentException(path + ": null is not " + what);
    }
    if (value.valueType() != ConfigValueType.OBJECT) {
      throw new IllegalArgumentException(path + ": " + render(value) + " is not " + what);
    }
    return ((ConfigObject) value).toConfig();
  }

  private static Config library(String path) {
    // cached by ConfigFactory per class loader
    return ConfigFactory.defaultReference(PolicyConfig.class.getClassLoader()).getConfig(path);
  }

  // rejects the first unknown key, alphabetically; where names its full path
  private static void rejectUnknownKeys(
      Config block, Map<String, String> allowed, String what, UnaryOperator<String> where) {
    TreeSet<String> unknown = new TreeSet<>(block.root().keySet());
    unknown.removeAll(allowed.keySet());
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          where.apply(unknown.first())
              + ": unknown setting; "
              + what.substring(0, what.indexOf(" {"))
              + " has only "
              + String.join(", ", allowed.keySet()));
    }
  }

  // the budget block that key names, or null if the value is null
  public Named budget(String key, Map<String, String> allowed) {
    Config source = source(key);
    if (!source.hasPath(key)) {
      return null; // absent or null
    }
    ConfigValue value = source.getValue(key);
    Object raw = value.unwrapped();
    if (value.valueType() != ConfigValueType.STRING || ((String) raw).isBlank()) {
      throw bad(key, "is not a restart budget's name (a non-empty string) or null");
    }
    String name = ((String) raw).trim();
    if (root == null) {
      throw bad(
          key,
          "cannot be looked up: budgets are defined at supervision-backoff.budgets.<name>, which"
              + " only BackoffPolicy.fromConfig(root, path) can see");
    }
    String path = ConfigUtil.joinPath("supervision-backoff", "budgets", name);
    if (find(root, path, BUDGET_BLOCK) == null) {
      throw bad(key, "is not defined: expected " + path + " { permits = ..., period = ... }");
    }
    return new Named(
        name,
        inRoot(root, path, BUDGET_BLOCK, BUDGET_DEFAULTS_PATH, BUDGET_DEFAULTS_BLOCK, allowed));
  }

  // a named block and its reader
  public record Named(String name, PolicyConfig config) {}

  // whether the block itself (not the defaults) sets key
  public boolean has(String key) {
    return block.hasPath(key);
  }

  // the block if it has key (even as null), else the defaults
  private Config source(String key) {
    if (block.hasPathOrNull(key)) {
      return block;
    }
    if (defaults.hasPathOrNull(key)) {
      return defaults;
    }
    throw new IllegalArgumentException(
        where(key, block) + ": missing; expected " + allowed.get(key));
  }

  /** The full path of {@code key} as the message should name it. */
  private String where(String key, Config source) {
    String quoted = ConfigUtil.joinPath(key); // "max-backoff.x" stays one quoted key
    if (source != block) {
      return defaultsPath + "." + quoted;
    }
    if (!prefix.isEmpty()) {
      return prefix + quoted;
    }
    ConfigValue value = block.root().get(key);
    return value == null ? quoted : quoted + " (" + value.origin().description() + ")";
  }

  private ConfigValue raw(String key) {
    Config source = source(key);
    if (source.getIsNull(key)) {
      throw new IllegalArgumentException(where(key, source) + ": null is not " + allowed.get(key));
    }
    return source.getValue(key);
  }

  // key's full path, the value as written, then problem
  public IllegalArgumentException bad(String key, String problem) {
    Config source = source(key);
    String value = source.getIsNull(key) ? "null" : render(source.getValue(key));
    return new IllegalArgumentException(where(key, source) + ": " + value + " " + problem);
  }

  // a setter's rejection, under key; the rule becomes its cause
  public IllegalArgumentException invalid(String key, IllegalArgumentException rule) {
    IllegalArgumentException e = bad(key, "is not allowed: " + rule.getMessage());
    e.initCause(rule);
    return e;
  }

  // applies change; a rule it breaks is reported under key
  public <T> T apply(T value, String key, UnaryOperator<T> change) {
    try {
      return change.apply(value);
    } catch (IllegalArgumentException e) {
      throw invalid(key, e);
    }
  }

  private static String render(ConfigValue value) {
    return value.render(ConfigRenderOptions.concise());
  }

  // whether the value is word (case-insensitive)
  public boolean isWord(String key, String word) {
    ConfigValue value = raw(key);
    return value.valueType() == ConfigValueType.STRING
        && word.equalsIgnoreCase(((String) value.unwrapped()).trim());
  }

  public Duration duration(String key) {
    return duration(key, "a duration (for example 100ms, 2s, 1m)");
  }

  public Duration duration(String key, String allowed) {
    return typed(key, allowed, Config::getDuration);
  }

  private <T> T typed(String key, String allowed, BiFunction<Config, String, T> get) {
    raw(key);
    try {
      return get.apply(source(key), key);
    } catch (ConfigException e) {
      throw bad(key, "is not " + allowed);
    }
  }

  private ConfigValue integral(String key, String allowed) {
    ConfigValue value = raw(key);
    if (!isIntegral(value)) {
      throw bad(key, "is not " + allowed);
    }
    return value;
  }

  public double number(String key) {
    return typed(key, "a number", Config::getDouble);
  }

  // a whole number that fits an int (never 1.5)
  public int integer(String key, String allowed) {
    integral(key, allowed);
    return typed(key, allowed, Config::getInt);
  }

  public long longInteger(String key, String allowed) {
    if (integral(key, allowed).unwrapped() instanceof String digits) {
      // HOCON's getLong saturates a string of digits beyond the range of long; reject it instead
      try {
        return Long.parseLong(digits.trim());
      } catch (NumberFormatException e) {
        throw bad(key, "is not " + allowed + " from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE);
      }
    }
    return typed(key, allowed, Config::getLong);
  }

  // a whole number, or a string that spells one (HOCON converts those)
  private static boolean isIntegral(ConfigValue value) {
    Object raw = value.unwrapped();
    if (raw instanceof Integer || raw instanceof Long) {
      return true;
    }
    return raw instanceof String && ((String) raw).trim().matches("[-+]?\\d+");
  }

  public boolean bool(String key) {
    return typed(key, BOOLEAN, Config::getBoolean);
  }

  // Throwable classes by name, loaded (not initialized) with the context class loader, else ours
  @SuppressWarnings("unchecked")
  public Class<? extends Throwable>[] throwables(String key) {
    ConfigValue value = raw(key);
    if (value.valueType() != ConfigValueType.LIST) {
      throw bad(
          key, "is not a list of Throwable class names, for example [\"java.io.IOException\"]");
    }
    List<?> names = (List<?>) value.unwrapped();
    Class<? extends Throwable>[] types = new Class[names.size()];
    for (int i = 0; i < types.length; i++) {
      Object name = names.get(i);
      if (!(name instanceof String) || ((String) name).isBlank()) {
        String shown = name == null ? "null" : render(((ConfigList) value).get(i));
        throw bad(key, "is not a list of Throwable class names: element " + i + " is " + shown);
      }
      types[i] = throwable(key, ((String) name).trim());
    }
    return types;
  }

  private Class<? extends Throwable> throwable(String key, String name) {
    Class<?> type;
    try {
      type = Class.forName(name, false, classLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      String hint =
          "write the binary name, for example java.io.IOException or com.example.Outer$Inner";
      throw (IllegalArgumentException)
          bad(key, "names class " + name + ", which is not found (" + hint + ")").initCause(e);
    }
    if (!Throwable.class.isAssignableFrom(type)) {
      throw bad(key, "names class " + name + ", which is not a Throwable");
    }
    return type.asSubclass(Throwable.class);
  }

  private static ClassLoader classLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : PolicyConfig.class.getClassLoader();
  }

  // one of allowed (lower case), case-insensitive; returns it in lower case
  public String oneOf(String key, List<String> allowed) {
    ConfigValue value = raw(key);
    if (value.valueType() == ConfigValueType.STRING) {
      String word = ((String) value.unwrapped()).trim().toLowerCase(Locale.ROOT);
      if (allowed.contains(word)) {
        return word;
      }
    }
    throw bad(key, "is not one of " + String.join(", ", allowed));
  }
}
