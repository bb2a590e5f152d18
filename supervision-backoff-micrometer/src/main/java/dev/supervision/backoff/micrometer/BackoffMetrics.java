package dev.supervision.backoff.micrometer;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.spi.AdaptiveRateController;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

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
 * <p>{@link #bindBudgets} adds, per adaptive budget (tag {@value #BUDGET_TAG}), from its {@link
 * BudgetEvent}s: {@value #BUDGET_STATE} (gauge: 0 steady, 1 holding, 2 ramping), {@value
 * #BUDGET_RATE} (gauge: the restarts per second it allows; NaN without a limit), {@value
 * #BUDGET_GOODPUT} (gauge: the goodput measured at its last loss; NaN before one) and {@value
 * #BUDGET_PROBES} (counter: probes while holding).
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

  private final Tags commonTags;
  private final Map<String, MetricsListener> listeners = new ConcurrentHashMap<>();
  private final Map<String, BudgetGauges> budgetGauges = new ConcurrentHashMap<>();
  private final Set<Meter> meters = ConcurrentHashMap.newKeySet();
  private final Set<ActorRef<Stop>> budgetWatchers = ConcurrentHashMap.newKeySet();
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
    MeterRegistry r = requireBound();
    return listeners.computeIfAbsent(
        name, n -> new MetricsListener(r, commonTags.and(NAME_TAG, n), n));
  }

  /**
   * Registers the gauges of every adaptive restart budget of {@code system} (see the class
   * documentation), fed by the budgets' {@link BudgetEvent}s from now on. Stopped by {@link
   * #close()}.
   *
   * @param system the actor system whose budgets to watch
   * @throws NullPointerException if {@code system} is null
   * @throws IllegalStateException if the metrics are not bound to a registry
   */
  public void bindBudgets(ActorSystem<?> system) {
    Objects.requireNonNull(system, "system must not be null");
    requireBound();
    ActorRef<Stop> watcher =
        system.systemActorOf(
            Behaviors.<Object>setup(
                    ctx -> {
                      ctx.getSystem()
                          .eventStream()
                          .tell(
                              new EventStream.Subscribe<>(
                                  BudgetEvent.class, ctx.getSelf().narrow()));
                      return Behaviors.receive(Object.class)
                          .onMessage(
                              BudgetEvent.class,
                              e -> {
                                budgetGauges
                                    .computeIfAbsent(e.budget(), BudgetGauges::new)
                                    .onEvent(e);
                                return Behaviors.same();
                              })
                          .onMessage(
                              Stop.class,
                              s -> {
                                // unsubscribe explicitly, from this actor, so that it reaches the
                                // event stream after this actor's Subscribe: the event stream's own
                                // clean-up on termination can run before the subscription is added,
                                // and would then leave a stopped watcher (and this registry)
                                // subscribed for the life of the actor system
                                ctx.getSystem()
                                    .eventStream()
                                    .tell(new EventStream.Unsubscribe<>(ctx.getSelf().narrow()));
                                return Behaviors.stopped();
                              })
                          .build();
                    })
                .narrow(),
            "backoff-metrics-budgets-" + WATCHERS.incrementAndGet(),
            Props.empty());
    budgetWatchers.add(watcher);
  }

  private static final AtomicLong WATCHERS = new AtomicLong();

  private enum Stop {
    INSTANCE
  }

  /**
   * Removes every meter these metrics registered from the registry and stops watching budgets. The
   * listeners already handed out keep counting into meters that are no longer registered.
   */
  @Override
  public void close() {
    budgetWatchers.forEach(w -> w.tell(Stop.INSTANCE));
    budgetWatchers.clear();
    MeterRegistry r = registry;
    if (r != null) {
      meters.forEach(r::remove);
    }
    meters.clear();
    listeners.clear();
    budgetGauges.clear();
  }

  private MeterRegistry requireBound() {
    MeterRegistry r = registry;
    if (r == null) {
      throw new IllegalStateException("BackoffMetrics must be bound to a registry first (bindTo)");
    }
    return r;
  }

  private <M extends Meter> M track(M meter) {
    meters.add(meter);
    return meter;
  }

  /** The gauges of one adaptive budget. */
  private final class BudgetGauges {
    final AtomicInteger state = new AtomicInteger();
    final AtomicReference<Double> rate = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> goodput = new AtomicReference<>(Double.NaN);
    final Counter probes;

    BudgetGauges(String budget) {
      MeterRegistry r = requireBound();
      Tags t = commonTags.and(BUDGET_TAG, budget);
      track(
          Gauge.builder(BUDGET_STATE, state, AtomicInteger::doubleValue)
              .description("Adaptive restart budget state: 0 steady, 1 holding, 2 ramping")
              .tags(t)
              .strongReference(true)
              .register(r));
      track(
          Gauge.builder(BUDGET_RATE, rate, ref -> ref.get())
              .description("Restarts per second the adaptive budget allows")
              .tags(t)
              .strongReference(true)
              .register(r));
      track(
          Gauge.builder(BUDGET_GOODPUT, goodput, ref -> ref.get())
              .description("Goodput the adaptive budget measured at its last loss")
              .tags(t)
              .strongReference(true)
              .register(r));
      probes =
          track(
              Counter.builder(BUDGET_PROBES)
                  .description("Probe restarts of the adaptive budget while holding")
                  .tags(t)
                  .register(r));
    }

    void onEvent(BudgetEvent event) {
      if (event instanceof BudgetEvent.StateChanged e) {
        state.set(e.to().ordinal());
        if (e.to() == AdaptiveRateController.State.HOLDING) {
          rate.set(0.0);
        } else if (e.to() == AdaptiveRateController.State.STEADY) {
          rate.set(Double.NaN);
        }
      } else if (event instanceof BudgetEvent.RateChanged e) {
        rate.set(e.to());
        if (!Double.isNaN(e.goodput())) {
          goodput.set(e.goodput());
        }
      } else if (event instanceof BudgetEvent.Probe) {
        probes.increment();
      }
    }
  }

  /** The listener: meters registered once, updated per event. */
  private final class MetricsListener implements BackoffListener {

    private final String name;
    private final Counter restartsScheduled;
    private final Counter restarts;
    private final Timer delay;
    private final AtomicLong lastDelayNanos = new AtomicLong();
    private final Set<ActorRef<?>> inBackoff = ConcurrentHashMap.newKeySet();
    private final Map<BackoffEvent.Reason, Counter> giveUps =
        new EnumMap<>(BackoffEvent.Reason.class);
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
            track(
                Counter.builder(BUDGET_WAITS)
                    .description("Restarts that asked a restart budget for a permit")
                    .tags(budgetTags)
                    .register(registry));
        wait =
            track(
                Timer.builder(BUDGET_WAIT)
                    .description("Waits for a permit of a restart budget")
                    .tags(budgetTags)
                    .register(registry));
        track(
            Gauge.builder(BUDGET_WAITING, waiting, Set::size)
                .description("Supervised actors waiting for a permit of a restart budget")
                .tags(budgetTags)
                .strongReference(true)
                .register(registry));
      }
    }

    MetricsListener(MeterRegistry registry, Tags tags, String name) {
      this.name = name;
      this.registry = registry;
      this.tags = tags;
      restartsScheduled =
          track(
              Counter.builder(RESTARTS_SCHEDULED)
                  .description("Failures of supervised actors that scheduled a restart")
                  .tags(tags)
                  .register(registry));
      restarts =
          track(
              Counter.builder(RESTARTS)
                  .description("Restarts of supervised actors after their backoff")
                  .tags(tags)
                  .register(registry));
      delay =
          track(
              Timer.builder(DELAY)
                  .description("Scheduled restart delays, Retry-After hints included")
                  .tags(tags)
                  .register(registry));
      track(
          TimeGauge.builder(
                  DELAY_LAST, lastDelayNanos, TimeUnit.NANOSECONDS, AtomicLong::doubleValue)
              .description("The last scheduled restart delay")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      track(
          Gauge.builder(IN_BACKOFF, inBackoff, Set::size)
              .description("Supervised actors waiting for their restart")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      for (BackoffEvent.Reason reason : BackoffEvent.Reason.values()) {
        giveUps.put(
            reason,
            track(
                Counter.builder(GIVE_UPS)
                    .description("Supervised actors stopped because of a failure")
                    .tags(tags)
                    .tag(REASON_TAG, reason.name().toLowerCase(Locale.ROOT))
                    .register(registry)));
      }
      resets =
          track(
              Counter.builder(RESETS)
                  .description(
                      "Restart counts reset after a supervised actor ran resetAfter without failing")
                  .tags(tags)
                  .register(registry));
      stoppedDuringBackoff =
          track(
              Counter.builder(STOPPED_DURING_BACKOFF)
                  .description(
                      "Supervised actors stopped from outside while waiting for their restart")
                  .tags(tags)
                  .register(registry));
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
          meters.wait.record(
              registry.config().clock().monotonicTime() - since, TimeUnit.NANOSECONDS);
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
