package dev.supervision.herd;

/**
 * A scenario setting outside its rule. It knows which setting is at fault, so that the command line
 * can name the option as the user wrote it without reading the message.
 */
public final class ScenarioException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String parameter;
  private final String rule;
  private final String value;

  /**
   * A setting outside its rule.
   *
   * @param parameter the setting's name, for example {@code cells}
   * @param rule what it must be, for example {@code >= 1}
   * @param value the value it had, as text
   */
  public ScenarioException(String parameter, String rule, String value) {
    super(parameter + " must be " + rule + " but was " + value);
    this.parameter = parameter;
    this.rule = rule;
    this.value = value;
  }

  /**
   * Throws if a rule is broken.
   *
   * @param ok whether the rule holds
   * @param parameter the setting's name
   * @param rule the rule, in words
   * @param value the value
   * @throws ScenarioException if {@code ok} is false
   */
  static void require(boolean ok, String parameter, String rule, Object value) {
    if (!ok) {
      throw new ScenarioException(parameter, rule, String.valueOf(value));
    }
  }

  /**
   * The setting at fault.
   *
   * @return its name, for example {@code cells}
   */
  public String parameter() {
    return parameter;
  }

  /**
   * The message with the setting called by another name (an option as written on the command line).
   *
   * @param name the name to use, for example {@code --cells}
   * @return {@code name must be rule but was value}
   */
  public String messageFor(String name) {
    return name + " must be " + rule + " but was " + value;
  }
}
