package dev.supervision.backoff.micrometer;

import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_GOODPUT;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_PROBES;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_RATE;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_STATE;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_TAG;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.spi.AdaptiveRateController;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The gauges of the adaptive restart budgets (see {@link BackoffMetrics#bindBudgets}): one watcher
 * actor per actor system, subscribed to the {@link BudgetEvent}s, feeds one set of gauges per
 * budget. Thread-safe.
 */
final class BudgetWatcher {

  private static final AtomicLong WATCHERS = new AtomicLong();

  private enum Stop {
    INSTANCE
  }

  private final Tags commonTags;
  private final Set<Meter> tracked;
  private final Map<String, BudgetGauges> budgetGauges = new ConcurrentHashMap<>();
  private final Set<ActorRef<Stop>> budgetWatchers = ConcurrentHashMap.newKeySet();

  BudgetWatcher(Tags commonTags, Set<Meter> tracked) {
    this.commonTags = commonTags;
    this.tracked = tracked;
  }

  /**
   * Starts a watcher actor in {@code system} that feeds the gauges of its budgets. The watcher is
   * subscribed from the calling thread, before this returns, so that it hears the {@link
   * BudgetEvent.Started} of every budget whose gate starts after this call.
   */
  void watch(ActorSystem<?> system, MeterRegistry registry) {
    ActorRef<Object> watcher =
        system.systemActorOf(
            Behaviors.<Object>setup(
                ctx ->
                    Behaviors.receive(Object.class)
                        .onMessage(
                            BudgetEvent.class,
                            e -> {
                              budgetGauges
                                  .computeIfAbsent(e.budget(), b -> new BudgetGauges(b, registry))
                                  .onEvent(e);
                              return Behaviors.same();
                            })
                        .onMessage(
                            Stop.class,
                            s -> {
                              // unsubscribe explicitly, from this actor, after the Subscribe sent
                              // in watch(): the event stream's own clean-up on termination could
                              // otherwise leave a stopped watcher (and this registry) subscribed
                              ctx.getSystem()
                                  .eventStream()
                                  .tell(new EventStream.Unsubscribe<>(ctx.getSelf().narrow()));
                              return Behaviors.stopped();
                            })
                        .build()),
            "backoff-metrics-budgets-" + WATCHERS.incrementAndGet(),
            Props.empty());
    system
        .eventStream()
        .tell(new EventStream.Subscribe<>(BudgetEvent.class, watcher.<BudgetEvent>narrow()));
    budgetWatchers.add(watcher.narrow());
  }

  /** Stops every watcher and forgets the gauges (their meters are removed by the caller). */
  void close() {
    budgetWatchers.forEach(w -> w.tell(Stop.INSTANCE));
    budgetWatchers.clear();
    budgetGauges.clear();
  }

  private <M extends Meter> M track(M meter) {
    tracked.add(meter);
    return meter;
  }

  /** The gauges of one adaptive budget. */
  private final class BudgetGauges {
    final AtomicInteger state = new AtomicInteger();
    final AtomicReference<Double> rate = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> goodput = new AtomicReference<>(Double.NaN);
    final Counter probes;

    BudgetGauges(String budget, MeterRegistry registry) {
      Tags tags = commonTags.and(BUDGET_TAG, budget);
      track(
          Gauge.builder(BUDGET_STATE, state, AtomicInteger::doubleValue)
              .description("Adaptive restart budget state: 0 steady, 1 holding, 2 ramping")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      track(
          Gauge.builder(BUDGET_RATE, rate, ref -> ref.get())
              .description("Restarts per second the adaptive budget allows")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      track(
          Gauge.builder(BUDGET_GOODPUT, goodput, ref -> ref.get())
              .description("Goodput the adaptive budget measured at its last loss")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      probes =
          track(
              Counter.builder(BUDGET_PROBES)
                  .description("Probe restarts of the adaptive budget while holding")
                  .tags(tags)
                  .register(registry));
    }

    void onEvent(BudgetEvent event) {
      if (event instanceof BudgetEvent.Started) {
        // a new gate: steady, no limit, nothing measured (a restarted gate learns again)
        state.set(AdaptiveRateController.State.STEADY.ordinal());
        rate.set(Double.NaN);
        goodput.set(Double.NaN);
      } else if (event instanceof BudgetEvent.StateChanged e) {
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
}
