package dev.supervision.backoff.stream.internal;

import dev.supervision.backoff.BackoffPolicy;
import java.util.Objects;

/**
 * What every restartable stage of this module is made of: the policy, the stream's name, the kind
 * of stage (for log lines) and whether completions restart it too.
 *
 * @param kind what the stage is, as log lines name it: {@code source}, {@code flow} or {@code sink}
 * @param name the stream's name, never blank
 * @param policy the backoff policy
 * @param onlyOnFailures whether only failures restart the inner stream (completions and plain
 *     cancellations end the outer one)
 */
public record StreamSpec(String kind, String name, BackoffPolicy policy, boolean onlyOnFailures) {

  /**
   * Checks the arguments a user gave, naming the parameter that is wrong.
   *
   * @param kind the stage kind
   * @param name the stream's name
   * @param policy the policy
   * @param factory the factory of the inner stream
   * @param onlyOnFailures whether only failures restart
   * @return the spec
   */
  public static StreamSpec of(
      String kind, String name, BackoffPolicy policy, Object factory, boolean onlyOnFailures) {
    Objects.requireNonNull(name, "name must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank but was \"" + name + "\"");
    }
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(factory, "factory must not be null");
    return new StreamSpec(kind, name, policy, onlyOnFailures);
  }
}
