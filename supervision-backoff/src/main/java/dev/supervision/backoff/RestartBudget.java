package dev.supervision.backoff;

import java.time.Duration;

/**
 * A limit on how fast a whole group of actors may restart, shared by every supervised actor whose
 * policy names it (see {@link BackoffPolicy#withBudget(RestartBudget)}). An immutable, validated
 * value of one of two kinds:
 *
 * <ul>
 *   <li>a {@linkplain FixedRestartBudget fixed} budget, {@link #of(String, int, Duration)}: at most
 *       {@code permits} restarts per {@code period}, plus a burst;
 *   <li>an {@linkplain AdaptiveRestartBudget adaptive} budget, {@link #adaptive(String)}: no fixed
 *       rate; it learns the rate the shared resource can take from the outcomes of the restarts it
 *       grants.
 * </ul>
 *
 * <p>Jitter spreads restarts, but their peak still grows with the number of actors. A budget limits
 * the group: when an actor's backoff delay has passed, it asks the budget for a permit and restarts
 * only when it gets one. Waiting actors are served first come, first served; an actor stopped while
 * it waits gives up its place.
 *
 * <p>Budgets are identified by {@link #getName()} within one {@code ActorSystem}: all actors of a
 * system whose policies name the same budget share one gate actor (owned by the {@link
 * RestartBudgets} extension), with no wiring by the user. Two budgets with the same name and
 * different limits ({@link #sameLimitsAs(RestartBudget)}) in one system are an error, reported when
 * the second actor starts.
 *
 * <p>The interface is sealed: the two kinds are the only implementations. Settings that belong to
 * one kind exist only on its class ({@code withBurst} on a fixed budget, {@code withProbation} on an
 * adaptive one), so a setting of the wrong kind does not compile.
 */
public sealed interface RestartBudget permits FixedRestartBudget, AdaptiveRestartBudget {

  /**
   * A fixed budget of {@code permits} restarts per {@code period}, with the default burst ({@code
   * max(1, permits / 10)}).
   *
   * @param name the budget's name, shared by all actors of a system that use it; not blank
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   * @return a new budget
   * @throws NullPointerException if {@code name} or {@code period} is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank, {@code permits < 1} or the period is
   *     out of range
   */
  static FixedRestartBudget of(String name, int permits, Duration period) {
    return FixedRestartBudget.create(name, permits, period);
  }

  /**
   * An adaptive budget: no fixed rate; it learns the rate from the outcomes of the restarts it
   * grants (see {@link AdaptiveRestartBudget}). Defaults: probation 100 ms, no ceiling, ramping
   * starts at 100 restarts per second, holding starts after 10 failures within one second.
   *
   * @param name the budget's name, shared by all actors of a system that use it; not blank
   * @return a new budget
   * @throws NullPointerException if {@code name} is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank
   */
  static AdaptiveRestartBudget adaptive(String name) {
    return AdaptiveRestartBudget.create(name);
  }

  /**
   * The name that identifies the budget within an actor system.
   *
   * @return the name
   */
  String getName();

  /**
   * Whether the limit holds across a cluster rather than per actor system.
   *
   * @return {@code true} for a cluster-wide budget
   */
  boolean isClusterWide();

  /**
   * Makes the budget hold for the sum of restarts on all nodes of a Pekko Cluster, instead of per
   * actor system (see each kind for what a node enforces). Needs the {@code
   * supervision-backoff-cluster} module on the classpath (found with {@link
   * java.util.ServiceLoader}); without it, an actor using the budget fails to start with a message
   * saying so.
   *
   * @return a new, cluster-wide budget of the same kind and settings
   */
  RestartBudget clusterWide();

  /**
   * Whether two budgets have the same kind and the same limits (every setting but the name), so that
   * they may share one gate.
   *
   * @param other another budget
   * @return {@code true} if the kind and every setting but the name are equal
   * @throws NullPointerException if {@code other} is null
   */
  boolean sameLimitsAs(RestartBudget other);
}
