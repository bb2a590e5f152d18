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
 * INTERNAL API: reads the values of one HOCON block (a backoff policy block, or a restart budget
 * block) with messages that name the setting at fault, behind {@code BackoffPolicy.fromConfig}.
 * It knows how to read a value and how to blame a key; which keys a block has, and what each
 * allows, is written once in the table of settings that drives this reader (given to it as one
 * ordered map of key to what it allows).
 *
 * <p>Every key the block leaves out is taken from the defaults path ({@value #DEFAULTS_PATH} for a
 * policy): first from the root config given (so an application can change the defaults of all its
 * policies in {@code application.conf}), then from the library's {@code reference.conf}. A bad
 * value fails with an {@link IllegalArgumentException} whose message starts with the full path of
 * the setting that holds it (the block's path, or the defaults path when the bad value is a
 * default), then the value as written in HOCON, then what is allowed; for example {@code
 * my-service.worker-backoff.jitter: "fulll" is not one of full, equal, decorrelated, none}. Keys
 * that are not settings are rejected too, since they are almost always typos.
 *
 * <p>{@code budget} names a restart budget defined at {@value #BUDGETS_PATH}{@code .<name>} in
 * the root config, with defaults from {@value #BUDGET_DEFAULTS_PATH}; its block is read the same
 * way, driven by the budgets' table of settings.
 *
 * <p>This class depends on no policy type, so that the policy can use it without an import circle.
 */
public final class PolicyConfig {

  /** Where the library's defaults live, in {@code reference.conf} and, optionally, overridden. */
  public static final String DEFAULTS_PATH = "supervision-backoff.default-policy";

  /** Where restart budgets are defined, one block per name. */
  public static final String BUDGETS_PATH = "supervision-backoff.budgets";

  /** The defaults of every budget block. */
  public static final String BUDGET_DEFAULTS_PATH = "supervision-backoff.default-budget";

  /** What a boolean key allows. */
  public static final String BOOLEAN = "one of on, off, true, false, yes, no";

  private static final String POLICY_BLOCK = "a backoff policy block { ... }";
  private static final String BUDGET_BLOCK =
      "a restart budget block { permits = ..., period = ... }";
  private static final String BUDGET_DEFAULTS_BLOCK = "a block of restart budget defaults { ... }";

  /** The whole config, where budgets are defined; null when only a block was given. */
  private final Config root;

  private final Config block;
  private final Config defaults;
  private final String prefix;
  private final String defaultsPath;

  /** Every key of the block, in the documented order, and what it allows (for messages). */
  private final Map<String, String> allowed;

  /**
   * A reader of {@code block} ({@code what}, for example {@link #POLICY_BLOCK}), which it rejects
   * if it has a key that is not one of {@code allowed}'s.
   */
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

  /**
   * A reader of a policy block whose path in the application's config is not known: messages name
   * the key relative to the block and where its value came from (file and line when it came from a
   * file). Defaults come from the library's {@code reference.conf}.
   *
   * @param block the policy block
   * @param allowed every key a policy block may have, in the documented order, and what it allows
   *     (for messages about null and missing values)
   * @return the reader
   * @throws NullPointerException if {@code block} is {@code null}
   * @throws IllegalArgumentException if the block has a key that is not one of {@code allowed}'s
   */
  public static PolicyConfig policy(Config block, Map<String, String> allowed) {
    Objects.requireNonNull(block, "config must not be null");
    return new PolicyConfig(
        null, block, library(DEFAULTS_PATH), "", DEFAULTS_PATH, allowed, POLICY_BLOCK);
  }

  /**
   * A reader of the policy block at {@code path} in {@code root}; messages name the full path.
   * Defaults come from {@code root}'s {@value #DEFAULTS_PATH} if it has one (which may hold only
   * {@code allowed}'s keys), then from the library's {@code reference.conf}.
   *
   * @param root the whole config, for example {@code system.settings().config()}
   * @param path the path of the policy block in {@code root}
   * @param allowed every key a policy block may have, in the documented order, and what it allows
   *     (for messages about null and missing values)
   * @return the reader
   * @throws NullPointerException if {@code root} or {@code path} is {@code null}
   * @throws IllegalArgumentException if there is no block at {@code path}, or it or the
   *     application's defaults have a key that is not one of {@code allowed}'s
   */
  public static PolicyConfig policy(Config root, String path, Map<String, String> allowed) {
    Objects.requireNonNull(root, "root must not be null");
    Objects.requireNonNull(path, "path must not be null");
    return inRoot(root, path, POLICY_BLOCK, DEFAULTS_PATH, POLICY_BLOCK, allowed);
  }

  /**
   * A reader of the block ({@code what}) at {@code path} in {@code root}, with the defaults at
   * {@code defaultsPath} ({@code defaultsWhat}); messages name the full path.
   */
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

  /**
   * The defaults at {@code path}: the root's, if it has them, over the library's. The root's block
   * may hold only {@code allowed}'s keys: a typo there would otherwise change nothing, silently.
   */
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

  /**
   * The value at {@code path} in {@code root}, or null if there is none; a {@code null} in HOCON
   * is returned as a value of type NULL. Unlike {@code Config.getValue} it explains a path that
   * runs through a value that is not a block instead of throwing {@code ConfigException}.
   */
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
        throw new IllegalArgumentException(
            path
                + ": "
                + parent
                + " is "
                + (value.valueType() == ConfigValueType.NULL ? "null" : render(value))
                + ", not a block { ... }, so it cannot hold "
                + what);
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

  // ---------------------------------------------------------------- parsing

  /**
   * Rejects the first key of {@code block} ({@code what}, for example {@link #POLICY_BLOCK}), in
   * alphabetical order, that is not one of {@code allowed}'s; {@code where} names a key's full path
   * in the message.
   */
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

  /**
   * A reader of the restart budget block that {@code key} names, defined at {@value
   * #BUDGETS_PATH}{@code .<name>}, with defaults from {@value #BUDGET_DEFAULTS_PATH}. Which keys a
   * budget has, and how its budget is made of them, is written in the budgets' table of settings,
   * which drives this reader.
   *
   * @param key the key that names the budget
   * @param allowed every key a budget block may have, in the documented order, and what it allows
   *     (for messages about null and missing values)
   * @return the budget's name and a reader of its block, or {@code null} if the value is {@code
   *     null}
   * @throws IllegalArgumentException if the value is not a name, the budget is not defined, its
   *     block or the defaults have a key that is not one of {@code allowed}'s, or this reader was made for a
   *     block alone (which cannot see the budgets)
   */
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
          "cannot be looked up: budgets are defined at "
              + BUDGETS_PATH
              + ".<name>, which only BackoffPolicy.fromConfig(root, path) can see");
    }
    String path = ConfigUtil.joinPath("supervision-backoff", "budgets", name);
    if (find(root, path, BUDGET_BLOCK) == null) {
      throw bad(key, "is not defined: expected " + path + " { permits = ..., period = ... }");
    }
    return new Named(
        name,
        inRoot(root, path, BUDGET_BLOCK, BUDGET_DEFAULTS_PATH, BUDGET_DEFAULTS_BLOCK, allowed));
  }

  /**
   * A named block and its reader.
   *
   * @param name the block's name, for example a budget's
   * @param config the reader of the block
   */
  public record Named(String name, PolicyConfig config) {}

  /**
   * Whether the block itself sets {@code key} (the defaults do not count).
   *
   * @param key the key
   * @return whether the block has it
   */
  public boolean has(String key) {
    return block.hasPath(key);
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

  /**
   * The error for a value of {@code key} that is wrong as it stands: the key's full path, the value
   * as written, then {@code problem}.
   *
   * @param key the key
   * @param problem what is wrong, for example {@code needs period beside it}
   * @return the exception to throw
   */
  public IllegalArgumentException bad(String key, String problem) {
    Config source = source(key);
    String value = source.getIsNull(key) ? "null" : render(source.getValue(key));
    return new IllegalArgumentException(where(key, source) + ": " + value + " " + problem);
  }

  /**
   * The error for a value of {@code key} that a setter rejected: the key's full path, the value,
   * then the setter's message; {@code rule} becomes its cause.
   *
   * @param key the key whose value was rejected
   * @param rule the setter's exception
   * @return the exception to throw
   */
  public IllegalArgumentException invalid(String key, IllegalArgumentException rule) {
    IllegalArgumentException e = bad(key, "is not allowed: " + rule.getMessage());
    e.initCause(rule);
    return e;
  }

  /**
   * Applies one setting to a value; a rule it breaks is reported under {@code key}.
   *
   * @param value the value to change
   * @param key the key whose value {@code change} applies
   * @param change applies it, through a validating setter
   * @param <T> the value's type
   * @return the changed value
   * @throws IllegalArgumentException naming {@code key} if {@code change} rejects the value
   */
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

  /**
   * Whether the value of {@code key} is the word {@code word} (case-insensitive).
   *
   * @param key the key
   * @param word the word, for example {@code auto} or {@code off}
   * @return whether it is
   * @throws IllegalArgumentException if the value is null or missing
   */
  public boolean isWord(String key, String word) {
    ConfigValue value = raw(key);
    return value.valueType() == ConfigValueType.STRING
        && word.equalsIgnoreCase(((String) value.unwrapped()).trim());
  }

  /**
   * The value of {@code key} as a duration.
   *
   * @param key the key
   * @return the duration
   * @throws IllegalArgumentException if the value is not a duration
   */
  public Duration duration(String key) {
    return duration(key, "a duration (for example 100ms, 2s, 1m)");
  }

  /**
   * The value of {@code key} as a duration; {@code allowed} says what is allowed in the message.
   *
   * @param key the key
   * @param allowed what the key allows, for example {@code a duration (for example 30s) or auto}
   * @return the duration
   * @throws IllegalArgumentException if the value is not a duration
   */
  public Duration duration(String key, String allowed) {
    return typed(key, allowed, Config::getDuration);
  }

  /** The value of {@code key} read by {@code get}; {@code allowed} names the type in the message. */
  private <T> T typed(String key, String allowed, BiFunction<Config, String, T> get) {
    raw(key);
    try {
      return get.apply(source(key), key);
    } catch (ConfigException e) {
      throw bad(key, "is not " + allowed);
    }
  }

  /** The value of {@code key} if it is a whole number, or a string that spells one. */
  private ConfigValue integral(String key, String allowed) {
    ConfigValue value = raw(key);
    if (!isIntegral(value)) {
      throw bad(key, "is not " + allowed);
    }
    return value;
  }

  /**
   * The value of {@code key} as a number.
   *
   * @param key the key
   * @return the number
   * @throws IllegalArgumentException if the value is not a number
   */
  public double number(String key) {
    return typed(key, "a number", Config::getDouble);
  }

  /**
   * The value of {@code key} as a whole number that fits an {@code int} (never {@code 1.5}).
   *
   * @param key the key
   * @param allowed what the key allows, for the message
   * @return the number
   * @throws IllegalArgumentException if the value is not such a number
   */
  public int integer(String key, String allowed) {
    integral(key, allowed);
    return typed(key, allowed, Config::getInt);
  }

  /**
   * The value of {@code key} as a whole number that fits a {@code long}.
   *
   * @param key the key
   * @param allowed what the key allows, for the message
   * @return the number
   * @throws IllegalArgumentException if the value is not such a number
   */
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

  /** A whole number, or a string that spells one (HOCON converts those); never 1.5. */
  private static boolean isIntegral(ConfigValue value) {
    Object raw = value.unwrapped();
    if (raw instanceof Integer || raw instanceof Long) {
      return true;
    }
    return raw instanceof String && ((String) raw).trim().matches("[-+]?\\d+");
  }

  /**
   * The value of {@code key} as a boolean ({@value #BOOLEAN}).
   *
   * @param key the key
   * @return the boolean
   * @throws IllegalArgumentException if the value is not a boolean
   */
  public boolean bool(String key) {
    return typed(key, BOOLEAN, Config::getBoolean);
  }

  /**
   * The value of {@code key} as a list of {@code Throwable} class names, loaded (not initialized)
   * with the thread's context class loader, else this library's.
   *
   * @param key the key
   * @return the classes, in the order written
   * @throws IllegalArgumentException if the value is not a list of names, or a name is not found or
   *     not a {@code Throwable}; the message names the key and the class
   */
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
        throw bad(
            key,
            "is not a list of Throwable class names: element "
                + i
                + " is "
                + (name == null ? "null" : render(((ConfigList) value).get(i))));
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
      IllegalArgumentException error =
          bad(
              key,
              "names class "
                  + name
                  + ", which is not found"
                  + " (write the binary name, for example java.io.IOException or com.example.Outer$Inner)");
      error.initCause(e);
      throw error;
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

  /**
   * The value of {@code key} as one of {@code allowed} (case-insensitive).
   *
   * @param key the key
   * @param allowed the allowed words, in lower case
   * @return the word, in lower case
   * @throws IllegalArgumentException if the value is not one of them
   */
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
