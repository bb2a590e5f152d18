package dev.supervision.backoff.micrometer;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Records the {@link BackoffEvent}s of supervised actors as Micrometer meters:
 *
 * <pre>{@code
 * BackoffPolicy policy =
 *     BackoffPolicy.fromConfig(config, "my-service.worker-backoff")
 *         .withListener(BackoffMetrics.listener(registry, "orders-worker"));
 * }</pre>
 *
 * <p>Every meter has the tag {@value #NAME_TAG}{@code =<name>} (plus the extra tags given):
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
 *       max_restarts_reached} or {@code permanent_failure}</td><td>actors stopped because of a
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
 * <p>Thread-safe. The listener is called on the actors' threads; it does a few atomic updates per
 * event and never blocks.
 */
public final class BackoffMetrics {

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
  /** The tag that carries the name given to {@link #listener(MeterRegistry, String)}. */
  public static final String NAME_TAG = "name";
  /** The tag of {@value #GIVE_UPS} that carries the reason. */
  public static final String REASON_TAG = "reason";

  /** One listener per registry, name and tags, so that gauges reflect every actor of the name. */
  private static final Map<MeterRegistry, Map<Tags, BackoffListener>> LISTENERS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private BackoffMetrics() {}

  /**
   * A listener that records events in {@code registry} under the tag {@value #NAME_TAG}{@code
   * =name}. Calling it again with the same registry and name returns the same listener, so that
   * policies made in many places (for example one per actor in {@code Behaviors.setup}) share the
   * meters and the gauges count every actor of the name.
   *
   * <p>The name should have few values (a kind of actor, such as {@code "orders-worker"}, not an
   * entity id): each name is a set of time series, and each listener is kept as long as its
   * registry.
   *
   * @param registry where the meters are registered
   * @param name the value of the {@value #NAME_TAG} tag, for example the kind of actor
   * @return the listener
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static BackoffListener listener(MeterRegistry registry, String name) {
    return listener(registry, name, Tags.empty());
  }

  /**
   * As {@link #listener(MeterRegistry, String)}, with extra tags on every meter.
   *
   * @param registry where the meters are registered
   * @param name the value of the {@value #NAME_TAG} tag
   * @param tags more tags, for example the service; must not use the keys {@value #NAME_TAG},
   *     {@value #REASON_TAG} or {@value #BUDGET_TAG}
   * @return the listener
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank or {@code tags} uses a reserved key
   */
  public static BackoffListener listener(MeterRegistry registry, String name, Iterable<Tag> tags) {
    Objects.requireNonNull(registry, "registry must not be null");
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(tags, "tags must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank but was \"" + name + "\"");
    }
    for (Tag tag : tags) {
      if (tag.getKey().equals(NAME_TAG) || tag.getKey().equals(REASON_TAG) || tag.getKey().equals(BUDGET_TAG)) {
        throw new IllegalArgumentException(
            "tags must not use the key " + tag.getKey() + " (reserved) but had " + tag);
      }
    }
    Tags all = Tags.of(tags).and(NAME_TAG, name);
    synchronized (LISTENERS) {
      return LISTENERS
          .computeIfAbsent(registry, r -> new ConcurrentHashMap<>())
          .computeIfAbsent(all, t -> new MetricsListener(registry, t, name));
    }
  }

  /** The listener: meters registered once, updated per event. */
  private static final class MetricsListener implements BackoffListener {

    private final String name;
    private final Counter restartsScheduled;
    private final Counter restarts;
    private final Timer delay;
    private final AtomicLong lastDelayNanos = new AtomicLong();
    private final Set<ActorRef<?>> inBackoff = ConcurrentHashMap.newKeySet();
    private final Map<BackoffEvent.Reason, Counter> giveUps = new EnumMap<>(BackoffEvent.Reason.class);
    private final Counter resets;
    private final Counter stoppedDuringBackoff;
    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, BudgetMeters> budgets = new ConcurrentHashMap<>();
    /** When each waiting actor asked for its permit, by the registry's clock. */
    private final Map<ActorRef<?>, Long> waitingSince = new ConcurrentHashMap<>();

    /** The meters of one restart budget, registered when an actor first asks it for a permit. */
    private final class BudgetMeters {
      final Counter waits;
      final Timer wait;
      final Set<ActorRef<?>> waiting = ConcurrentHashMap.newKeySet();

      BudgetMeters(String budget) {
        Tags budgetTags = tags.and(BUDGET_TAG, budget);
        waits =
            Counter.builder(BUDGET_WAITS)
                .description("Restarts that asked a restart budget for a permit")
                .tags(budgetTags)
                .register(registry);
        wait =
            Timer.builder(BUDGET_WAIT)
                .description("Waits for a permit of a restart budget")
                .tags(budgetTags)
                .register(registry);
        Gauge.builder(BUDGET_WAITING, waiting, Set::size)
            .description("Supervised actors waiting for a permit of a restart budget")
            .tags(budgetTags)
            .strongReference(true)
            .register(registry);
      }
    }

    MetricsListener(MeterRegistry registry, Tags tags, String name) {
      this.name = name;
      this.registry = registry;
      this.tags = tags;
      restartsScheduled =
          Counter.builder(RESTARTS_SCHEDULED)
              .description("Failures of supervised actors that scheduled a restart")
              .tags(tags)
              .register(registry);
      restarts =
          Counter.builder(RESTARTS)
              .description("Restarts of supervised actors after their backoff")
              .tags(tags)
              .register(registry);
      delay =
          Timer.builder(DELAY)
              .description("Scheduled restart delays, Retry-After hints included")
              .tags(tags)
              .register(registry);
      TimeGauge.builder(DELAY_LAST, lastDelayNanos, TimeUnit.NANOSECONDS, AtomicLong::doubleValue)
          .description("The last scheduled restart delay")
          .tags(tags)
          .strongReference(true)
          .register(registry);
      Gauge.builder(IN_BACKOFF, inBackoff, Set::size)
          .description("Supervised actors waiting for their restart")
          .tags(tags)
          .strongReference(true)
          .register(registry);
      for (BackoffEvent.Reason reason : BackoffEvent.Reason.values()) {
        giveUps.put(
            reason,
            Counter.builder(GIVE_UPS)
                .description("Supervised actors stopped because of a failure")
                .tags(tags)
                .tag(REASON_TAG, reason.name().toLowerCase(Locale.ROOT))
                .register(registry));
      }
      resets =
          Counter.builder(RESETS)
              .description("Restart counts reset after a supervised actor ran resetAfter without failing")
              .tags(tags)
              .register(registry);
      stoppedDuringBackoff =
          Counter.builder(STOPPED_DURING_BACKOFF)
              .description("Supervised actors stopped from outside while waiting for their restart")
              .tags(tags)
              .register(registry);
    }

    @Override
    public void onEvent(BackoffEvent event) {
      if (event instanceof BackoffEvent.RestartScheduled e) {
        restartsScheduled.increment();
        delay.record(e.delay());
        lastDelayNanos.set(e.delay().toNanos());
        inBackoff.add(e.actor());
      } else if (event instanceof BackoffEvent.Restarted) {
        restarts.increment();
        inBackoff.remove(event.actor());
      } else if (event instanceof BackoffEvent.GaveUp e) {
        giveUps.get(e.reason()).increment();
        leftBackoff(e.actor()); // a restart that failed in setup gives up from the backoff
      } else if (event instanceof BackoffEvent.StoppedDuringBackoff) {
        stoppedDuringBackoff.increment();
        leftBackoff(event.actor());
      } else if (event instanceof BackoffEvent.BackoffReset) {
        resets.increment();
      } else if (event instanceof BackoffEvent.WaitingForPermit e) {
        BudgetMeters meters = budgets.computeIfAbsent(e.budget(), BudgetMeters::new);
        meters.waits.increment();
        meters.waiting.add(e.actor());
        waitingSince.put(e.actor(), registry.config().clock().monotonicTime());
      } else if (event instanceof BackoffEvent.PermitGranted e) {
        BudgetMeters meters = budgets.computeIfAbsent(e.budget(), BudgetMeters::new);
        meters.waiting.remove(e.actor());
        Long since = waitingSince.remove(e.actor());
        if (since != null) {
          meters.wait.record(registry.config().clock().monotonicTime() - since, TimeUnit.NANOSECONDS);
        }
      }
    }

    private void leftBackoff(ActorRef<?> actor) {
      inBackoff.remove(actor);
      if (waitingSince.remove(actor) != null) {
        budgets.values().forEach(m -> m.waiting.remove(actor));
      }
    }

    @Override
    public String toString() {
      return "BackoffMetrics.listener(" + name + ")";
    }
  }
}
