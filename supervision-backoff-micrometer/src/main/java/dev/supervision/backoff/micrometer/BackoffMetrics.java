package dev.supervision.backoff.micrometer;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BudgetEvent;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Records the {@link BackoffEvent}s of supervised actors, and the state of adaptive restart budgets,
 * as Micrometer meters. A {@link MeterBinder} bound to one registry; {@link #close()} removes every
 * meter it registered. Nothing is kept in static state, so a registry that is no longer used can be
 * garbage-collected with its meters.
 *
 * <pre>{@code
 * BackoffMetrics metrics = new BackoffMetrics(Tags.of("service", "shop"));
 * metrics.bindTo(registry);
 * BackoffPolicy policy =
 *     BackoffPolicy.fromConfig(config, "my-service.worker-backoff")
 *         .withListener(metrics.listener("orders-worker"));
 * metrics.bindBudgets(system); // gauges of adaptive budgets: state, rate, goodput, probes
 * // ...
 * metrics.close();             // removes the meters
 * }</pre>
 *
 * <p>Every meter of a {@link #listener(String) listener} has the tag {@value #NAME_TAG}{@code
 * =<name>}, the name given to the listener (plus the extra tags given); the budget meters of a
 * listener also have {@value #BUDGET_TAG}{@code =<budget's name>}:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>type</th><th>what it counts</th></tr>
 *   <tr><td>{@value #RESTARTS_SCHEDULED}</td><td>counter</td><td>failures that scheduled a
 *       restart ({@link BackoffEvent.RestartScheduled})</td></tr>
 *   <tr><td>{@value #RESTARTS}</td><td>counter</td><td>restarts that happened ({@link
 *       BackoffEvent.Restarted})</td></tr>
 *   <tr><td>{@value #DELAY}</td><td>timer</td><td>the scheduled delays, Retry-After hints included:
 *       count, total, max</td></tr>
 *   <tr><td>{@value #DELAY_LAST}</td><td>time gauge</td><td>the last scheduled delay of any actor
 *       of this name; 0 before the first</td></tr>
 *   <tr><td>{@value #IN_BACKOFF}</td><td>gauge</td><td>actors currently waiting for their
 *       restart</td></tr>
 *   <tr><td>{@value #GIVE_UPS}</td><td>counter, tag {@value #REASON_TAG} = {@code
 *       max_restarts_reached}, {@code permanent_failure} or {@code inner_stop}</td><td>actors
 *       stopped because of a
 *       failure ({@link BackoffEvent.GaveUp})</td></tr>
 *   <tr><td>{@value #RESETS}</td><td>counter</td><td>restart counts that returned to 0 after
 *       {@code resetAfter} without failure ({@link BackoffEvent.BackoffReset})</td></tr>
 *   <tr><td>{@value #STOPPED_DURING_BACKOFF}</td><td>counter</td><td>actors stopped from outside
 *       while they waited ({@link BackoffEvent.StoppedDuringBackoff})</td></tr>
 *   <tr><td>{@value #BUDGET_WAITS}</td><td>counter, tag {@value #BUDGET_TAG}</td><td>restarts that
 *       asked a {@link dev.supervision.backoff.RestartBudget} for a permit ({@link
 *       BackoffEvent.WaitingForPermit})</td></tr>
 *   <tr><td>{@value #BUDGET_WAITING}</td><td>gauge, tag {@value #BUDGET_TAG}</td><td>actors waiting
 *       for a permit right now</td></tr>
 *   <tr><td>{@value #BUDGET_WAIT}</td><td>timer, tag {@value #BUDGET_TAG}</td><td>how long each
 *       granted permit was waited for, from {@link BackoffEvent.WaitingForPermit} to {@link
 *       BackoffEvent.PermitGranted}, by the registry's clock</td></tr>
 * </table>
 *
 * <p>Every meter but the budget meters is registered when the listener is made, so dashboards see
 * zeros rather than missing series; the budget meters are registered when an actor first asks a
 * budget for a permit, since only then is the budget's name known.
 *
 * <p>{@link #bindBudgets} adds, per adaptive budget, from its {@link BudgetEvent}s: {@value
 * #BUDGET_STATE} (gauge: 0 steady, 1 holding, 2 ramping), {@value #BUDGET_RATE} (gauge: the
 * restarts per second it allows; NaN without a limit), {@value #BUDGET_GOODPUT} (gauge: the goodput
 * measured at its last loss; NaN before one) and {@value #BUDGET_PROBES} (counter: probes while
 * holding). They describe a budget, which the actors of any listener name may share, so they have
 * the tag {@value #BUDGET_TAG}{@code =<budget's name>} (plus the extra tags given) and no {@value
 * #NAME_TAG} tag, as Micrometer's cache binder tags its meters by the cache ({@code cache=<name>}). They are
 * registered when the budget's gate starts ({@link BudgetEvent.Started}): when the first actor that
 * uses the budget starts, so a steady budget has its series (state 0) before anything fails. A
 * budget whose gate started before {@code bindBudgets} was called gets them at its next event.
 *
 * <p>For a cluster-wide adaptive budget (module {@code supervision-backoff-cluster}, where one
 * learner per budget leases each node its permits every round), {@code bindBudgets} adds where this
 * node stands with the learner, with the same tags: {@value #BUDGET_COORDINATED} (gauge: 1 if it
 * holds a lease from the learner, 0 on its own fallback, {@code 1/N} of the budget), {@value
 * #BUDGET_SHARE} (gauge: its part of the permits the learner leased in its last round; {@code 1/N}
 * on the fallback or without a limit), {@value #BUDGET_PROBER} (gauge: 1 if its lease carries the
 * cluster's probe while holding), {@value #BUDGET_CLUSTER_NODES} (gauge: the nodes the learner
 * counted; the members it knows, on its fallback), {@value #BUDGET_CLUSTER_WAITING} (gauge: the
 * actors waiting over those nodes; its own, on its fallback) and {@value
 * #BUDGET_COORDINATION_LOSSES} (counter: the times its lease expired and it fell back). They are
 * registered at the first status of the gate that has them (within a poll of the gate's start), so a
 * local budget has none. The gauges show the gate's status ({@code
 * RestartBudgets.status}), asked for once a second and at once after each {@link
 * BudgetEvent.CoordinationChanged}: they are at most a second old. They are NaN while the budget
 * has no gate on this node, or its new gate has not answered yet.
 *
 * <p>Lifetime: {@code bindBudgets} starts a system actor in the actor system that holds the gauges,
 * and through them the registry, so the registry stays reachable from the actor system until {@link
 * #close()} (or until the actor system terminates). A listener holds the registry only as long as a
 * policy holds the listener.
 *
 * <p>Thread-safe. The listener is called on the actors' threads; it does a few atomic updates per
 * event and never blocks.
 */
public final class BackoffMetrics implements MeterBinder, AutoCloseable {

  /** Counter of failures that scheduled a restart. */
  public static final String RESTARTS_SCHEDULED = "supervision.backoff.restarts.scheduled";

  /** Counter of restarts that happened. */
  public static final String RESTARTS = "supervision.backoff.restarts";

  /** Timer of the scheduled restart delays. */
  public static final String DELAY = "supervision.backoff.delay";

  /** Time gauge of the last scheduled restart delay. */
  public static final String DELAY_LAST = "supervision.backoff.delay.last";

  /** Gauge of the actors waiting for their restart. */
  public static final String IN_BACKOFF = "supervision.backoff.actors.in.backoff";

  /** Counter of actors stopped because of a failure, tagged by {@value #REASON_TAG}. */
  public static final String GIVE_UPS = "supervision.backoff.give.ups";

  /** Counter of backoff resets. */
  public static final String RESETS = "supervision.backoff.resets";

  /** Counter of actors stopped from outside during their backoff. */
  public static final String STOPPED_DURING_BACKOFF = "supervision.backoff.stopped.during.backoff";

  /** Counter of restarts that asked a restart budget for a permit, tagged by {@value #BUDGET_TAG}. */
  public static final String BUDGET_WAITS = "supervision.backoff.budget.waits";

  /** Gauge of the actors waiting for a permit of a restart budget, tagged by {@value #BUDGET_TAG}. */
  public static final String BUDGET_WAITING = "supervision.backoff.budget.waiting";

  /** Timer of the waits for a permit of a restart budget, tagged by {@value #BUDGET_TAG}. */
  public static final String BUDGET_WAIT = "supervision.backoff.budget.wait";

  /** The tag of the budget meters that carries the budget's name. */
  public static final String BUDGET_TAG = "budget";

  /** The tag that carries the name given to {@link #listener(String)}. */
  public static final String NAME_TAG = "name";

  /** The tag of {@value #GIVE_UPS} that carries the reason. */
  public static final String REASON_TAG = "reason";

  /** Gauge of an adaptive budget's state: 0 steady, 1 holding, 2 ramping; tagged by {@value #BUDGET_TAG}. */
  public static final String BUDGET_STATE = "supervision.backoff.budget.state";

  /** Gauge of the restarts per second an adaptive budget allows; tagged by {@value #BUDGET_TAG}. */
  public static final String BUDGET_RATE = "supervision.backoff.budget.rate";

  /** Gauge of the goodput an adaptive budget measured at its last loss; tagged by {@value #BUDGET_TAG}. */
  public static final String BUDGET_GOODPUT = "supervision.backoff.budget.goodput";

  /** Counter of an adaptive budget's probes while holding; tagged by {@value #BUDGET_TAG}. */
  public static final String BUDGET_PROBES = "supervision.backoff.budget.probes";

  /**
   * Gauge of a cluster-wide adaptive budget on this node: 1 if it holds a lease from the budget's
   * learner, 0 on its own fallback ({@code 1/N} of the budget); tagged by {@value #BUDGET_TAG}.
   */
  public static final String BUDGET_COORDINATED = "supervision.backoff.budget.coordinated";

  /**
   * Gauge of this node's part of the permits the learner of a cluster-wide adaptive budget leased
   * in its last round, in {@code [0, 1]} ({@code 1/N} on the fallback or without a limit); tagged
   * by {@value #BUDGET_TAG}.
   */
  public static final String BUDGET_SHARE = "supervision.backoff.budget.share";

  /**
   * Gauge of a cluster-wide adaptive budget on this node: 1 if this node's lease carries the
   * cluster's probe while holding, 0 if not; tagged by {@value #BUDGET_TAG}.
   */
  public static final String BUDGET_PROBER = "supervision.backoff.budget.prober";

  /**
   * Gauge of the nodes the learner of a cluster-wide adaptive budget counted in this node's last
   * lease (the members this node knows, on its fallback); tagged by {@value #BUDGET_TAG}.
   */
  public static final String BUDGET_CLUSTER_NODES = "supervision.backoff.budget.cluster.nodes";

  /**
   * Gauge of the actors waiting for a cluster-wide adaptive budget over the nodes the learner
   * counted (this node's own, on its fallback); tagged by {@value #BUDGET_TAG}.
   */
  public static final String BUDGET_CLUSTER_WAITING = "supervision.backoff.budget.cluster.waiting";

  /**
   * Counter of the times this node's lease from the learner of a cluster-wide adaptive budget
   * expired and it fell back on its own {@code 1/N} of the budget; tagged by {@value #BUDGET_TAG}.
   */
  public static final String BUDGET_COORDINATION_LOSSES =
      "supervision.backoff.budget.coordination.losses";

  private final Tags commonTags;
  private final Map<String, ListenerMeters> listeners = new ConcurrentHashMap<>();
  private final Set<Meter> meters = ConcurrentHashMap.newKeySet();
  private final BudgetWatcher budgets;
  private volatile MeterRegistry registry;

  /** Metrics with no extra tags; bind them with {@link #bindTo(MeterRegistry)}. */
  public BackoffMetrics() {
    this(Tags.empty());
  }

  /**
   * Metrics with extra tags on every meter; bind them with {@link #bindTo(MeterRegistry)}.
   *
   * @param tags more tags, for example the service; must not use the keys {@value #NAME_TAG},
   *     {@value #REASON_TAG} or {@value #BUDGET_TAG}
   * @throws NullPointerException if {@code tags} is null
   * @throws IllegalArgumentException if {@code tags} uses a reserved key
   */
  public BackoffMetrics(Iterable<Tag> tags) {
    Objects.requireNonNull(tags, "tags must not be null");
    for (Tag tag : tags) {
      if (tag.getKey().equals(NAME_TAG)
          || tag.getKey().equals(REASON_TAG)
          || tag.getKey().equals(BUDGET_TAG)) {
        throw new IllegalArgumentException(
            "tags must not use the key " + tag.getKey() + " (reserved) but had " + tag);
      }
    }
    this.commonTags = Tags.of(tags);
    this.budgets = new BudgetWatcher(commonTags, meters);
  }

  /**
   * Binds these metrics to {@code registry}: the registry their meters go to. Bind once.
   *
   * @param registry the registry
   * @throws NullPointerException if {@code registry} is null
   * @throws IllegalStateException if already bound to a registry
   */
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry must not be null");
    if (this.registry != null) {
      throw new IllegalStateException(
          "BackoffMetrics are bound to one registry; already bound to " + this.registry);
    }
    this.registry = registry;
  }

  /**
   * A listener that records events under the tag {@value #NAME_TAG}{@code =name}. The same name
   * gives the same listener, so that policies made in many places (for example one per actor in
   * {@code Behaviors.setup}) share the meters and the gauges count every actor of the name.
   *
   * <p>The name should have few values (a kind of actor, such as {@code "orders-worker"}, not an
   * entity id): each name is a set of time series.
   *
   * @param name the value of the {@value #NAME_TAG} tag, for example the kind of actor
   * @return the listener
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is blank
   * @throws IllegalStateException if the metrics are not bound to a registry
   */
  public BackoffListener listener(String name) {
    Objects.requireNonNull(name, "name must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank but was \"" + name + "\"");
    }
    MeterRegistry bound = requireBound();
    return listeners.computeIfAbsent(
        name, key -> new ListenerMeters(bound, commonTags.and(NAME_TAG, key), key, meters));
  }

  /**
   * Registers the gauges of every adaptive restart budget of {@code system} (see the class
   * documentation), fed by the budgets' {@link BudgetEvent}s from now on: a budget's gauges appear
   * when its gate starts, that is when the first actor that uses it starts. Call it before those
   * actors start; a budget already in use gets its gauges at its next event. Until {@link #close()}
   * the actor system holds the gauges and, through them, the registry.
   *
   * @param system the actor system whose budgets to watch
   * @throws NullPointerException if {@code system} is null
   * @throws IllegalStateException if the metrics are not bound to a registry
   */
  public void bindBudgets(ActorSystem<?> system) {
    Objects.requireNonNull(system, "system must not be null");
    budgets.watch(system, requireBound());
  }

  /**
   * Removes every meter these metrics registered from the registry and stops watching budgets. The
   * listeners already handed out keep counting into meters that are no longer registered.
   */
  @Override
  public void close() {
    budgets.close();
    MeterRegistry bound = registry;
    if (bound != null) {
      meters.forEach(bound::remove);
    }
    meters.clear();
    listeners.clear();
  }

  private MeterRegistry requireBound() {
    MeterRegistry bound = registry;
    if (bound == null) {
      throw new IllegalStateException("BackoffMetrics must be bound to a registry first (bindTo)");
    }
    return bound;
  }
}
