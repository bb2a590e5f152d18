package dev.supervision.backoff.micrometer;

import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_TAG;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_WAIT;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_WAITING;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_WAITS;
import static dev.supervision.backoff.micrometer.BackoffMetrics.DELAY;
import static dev.supervision.backoff.micrometer.BackoffMetrics.DELAY_LAST;
import static dev.supervision.backoff.micrometer.BackoffMetrics.GIVE_UPS;
import static dev.supervision.backoff.micrometer.BackoffMetrics.IN_BACKOFF;
import static dev.supervision.backoff.micrometer.BackoffMetrics.REASON_TAG;
import static dev.supervision.backoff.micrometer.BackoffMetrics.RESETS;
import static dev.supervision.backoff.micrometer.BackoffMetrics.RESTARTS;
import static dev.supervision.backoff.micrometer.BackoffMetrics.RESTARTS_SCHEDULED;
import static dev.supervision.backoff.micrometer.BackoffMetrics.STOPPED_DURING_BACKOFF;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The listener that {@link BackoffMetrics#listener(String)} hands out: the meters of one name,
 * registered once, updated per event. Thread-safe: events of many actors arrive concurrently.
 */
final class ListenerMeters implements BackoffListener {

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

  /** The meters of {@link BackoffMetrics} that these registered, so that close() removes them. */
  private final Set<Meter> tracked;

  ListenerMeters(MeterRegistry registry, Tags tags, String name, Set<Meter> tracked) {
    this.tracked = tracked;
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
        TimeGauge.builder(DELAY_LAST, lastDelayNanos, TimeUnit.NANOSECONDS, AtomicLong::doubleValue)
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

  private <M extends Meter> M track(M meter) {
    tracked.add(meter);
    return meter;
  }
}
