package dev.supervision.backoff.micrometer;

import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_CLUSTER_NODES;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_CLUSTER_WAITING;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_COORDINATED;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_COORDINATION_LOSSES;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_GOODPUT;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_PROBER;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_PROBES;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_RATE;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_SHARE;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_STATE;
import static dev.supervision.backoff.micrometer.BackoffMetrics.BUDGET_TAG;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.spi.GateProtocol;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The gauges of the adaptive restart budgets (see {@link BackoffMetrics#bindBudgets}): one watcher
 * actor per actor system, subscribed to the {@link BudgetEvent}s, feeds one set of gauges per
 * budget. The coordination gauges of a cluster-wide budget follow its gate's status, which the
 * watcher asks for every {@link #POLL} and at once after each {@link
 * BudgetEvent.CoordinationChanged}. Thread-safe.
 */
final class BudgetWatcher {

  /** How often the watcher asks the gates of the budgets it knows for their status. */
  static final Duration POLL = Duration.ofSeconds(1);

  private static final AtomicLong WATCHERS = new AtomicLong();

  private enum Stop {
    INSTANCE
  }

  private enum Poll {
    INSTANCE
  }

  /**
   * A gate's status, or none (the budget has no gate on this node now), answering the watcher's
   * {@code asked}-th question.
   */
  private record Polled(String budget, long asked, Optional<GateProtocol.Status> status) {}

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
    RestartBudgets budgets = RestartBudgets.get(system);
    ActorRef<Object> watcher =
        system.systemActorOf(
            behavior(registry, budgets::status),
            "backoff-metrics-budgets-" + WATCHERS.incrementAndGet(),
            Props.empty());
    system
        .eventStream()
        .tell(new EventStream.Subscribe<>(BudgetEvent.class, watcher.<BudgetEvent>narrow()));
    budgetWatchers.add(watcher.narrow());
  }

  /**
   * The watcher actor: takes {@link BudgetEvent}s, and asks {@code status} for a budget's status
   * every {@link #POLL} and after each {@link BudgetEvent.CoordinationChanged}. The answers of two
   * questions in flight can come back in either order: an answer is shown only if it answers a
   * later question than the last one shown for its budget.
   *
   * @param registry where the gauges go
   * @param status the status of a budget's gate now (package-private so that tests may answer)
   * @return the behavior
   */
  Behavior<Object> behavior(
      MeterRegistry registry,
      Function<String, CompletionStage<Optional<GateProtocol.Status>>> status) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> {
                  timers.startTimerWithFixedDelay(Poll.INSTANCE, POLL);
                  long[] asked = {0};
                  Map<String, Long> shown = new HashMap<>();
                  return Behaviors.receive(Object.class)
                      .onMessage(
                          BudgetEvent.class,
                          e -> {
                            gauges(e.budget(), registry).onEvent(e);
                            if (e instanceof BudgetEvent.CoordinationChanged) {
                              poll(ctx, status, e.budget(), ++asked[0]);
                            }
                            return Behaviors.same();
                          })
                      .onMessageEquals(
                          Poll.INSTANCE,
                          () -> {
                            budgetGauges.keySet().forEach(b -> poll(ctx, status, b, ++asked[0]));
                            return Behaviors.same();
                          })
                      .onMessage(
                          Polled.class,
                          p -> {
                            if (p.asked() > shown.getOrDefault(p.budget(), 0L)) {
                              shown.put(p.budget(), p.asked());
                              gauges(p.budget(), registry).onStatus(p.status());
                            }
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
                      .build();
                }));
  }

  private BudgetGauges gauges(String budget, MeterRegistry registry) {
    return budgetGauges.computeIfAbsent(budget, b -> new BudgetGauges(b, registry));
  }

  /** Asks the budget's gate, if it has one now, for its status; the answer comes as a {@link Polled}. */
  private static void poll(
      ActorContext<Object> ctx,
      Function<String, CompletionStage<Optional<GateProtocol.Status>>> status,
      String budget,
      long asked) {
    ctx.pipeToSelf(
        status.apply(budget),
        (answer, failure) -> new Polled(budget, asked, failure == null ? answer : null));
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
    final Tags tags;
    final AtomicInteger state = new AtomicInteger();
    final AtomicReference<Double> rate = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> goodput = new AtomicReference<>(Double.NaN);
    final Counter probes;
    final MeterRegistry registry;

    /**
     * Registered at the first status with a coordination (a cluster-wide adaptive budget only).
     */
    CoordinationGauges coordination;

    BudgetGauges(String budget, MeterRegistry registry) {
      this.registry = registry;
      tags = commonTags.and(BUDGET_TAG, budget);
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

    /** A polled status: the coordination gauges follow what the gate holds now. */
    void onStatus(Optional<GateProtocol.Status> status) {
      if (status == null) {
        return; // the gate did not answer in time: keep the last values until the next poll
      }
      Optional<GateProtocol.Coordination> c = status.flatMap(GateProtocol.Status::coordination);
      if (c.isPresent() || coordination != null) {
        coordination().show(c);
      }
    }

    CoordinationGauges coordination() {
      if (coordination == null) {
        coordination = new CoordinationGauges(tags, registry);
      }
      return coordination;
    }

    void onEvent(BudgetEvent event) {
      if (event instanceof BudgetEvent.CoordinationChanged e) {
        coordination().onChange(e);
        return;
      }
      if (event instanceof BudgetEvent.Started) {
        if (coordination != null) {
          coordination.restart(); // a new gate: nothing shown until it answers a poll
        }
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

  /**
   * The gauges of where a cluster-wide adaptive budget's gate on this node stands with the budget's
   * learner (its lease, or its fallback): NaN while the budget has no gate here, or its new gate has
   * not answered yet.
   */
  private final class CoordinationGauges {
    final AtomicReference<Double> coordinated = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> share = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> prober = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> nodes = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> waiting = new AtomicReference<>(Double.NaN);
    final Counter losses;
    boolean wasCoordinated;

    CoordinationGauges(Tags tags, MeterRegistry registry) {
      gauge(
          BUDGET_COORDINATED,
          coordinated,
          "1 if this node holds a lease from the learner, 0 on its own fallback",
          tags,
          registry);
      gauge(
          BUDGET_SHARE,
          share,
          "This node's part of the permits the learner leased in its last round (1/N on the"
              + " fallback or without a limit)",
          tags,
          registry);
      gauge(
          BUDGET_PROBER,
          prober,
          "1 if this node's lease carries the cluster's probe while holding",
          tags,
          registry);
      gauge(
          BUDGET_CLUSTER_NODES,
          nodes,
          "Nodes the learner counted in this node's last lease (the members it knows, on its"
              + " fallback)",
          tags,
          registry);
      gauge(
          BUDGET_CLUSTER_WAITING,
          waiting,
          "Actors waiting over the nodes the learner counted (this node's own, on its fallback)",
          tags,
          registry);
      losses =
          track(
              Counter.builder(BUDGET_COORDINATION_LOSSES)
                  .description(
                      "Times this node's lease expired and it fell back on its own 1/N of the"
                          + " budget")
                  .tags(tags)
                  .register(registry));
    }

    private void gauge(
        String meter,
        AtomicReference<Double> value,
        String description,
        Tags tags,
        MeterRegistry registry) {
      track(
          Gauge.builder(meter, value, AtomicReference::get)
              .description(description)
              .tags(tags)
              .strongReference(true)
              .register(registry));
    }

    void show(Optional<GateProtocol.Coordination> c) {
      coordinated.set(c.map(x -> x.coordinated() ? 1.0 : 0.0).orElse(Double.NaN));
      share.set(c.map(GateProtocol.Coordination::share).orElse(Double.NaN));
      prober.set(c.map(x -> x.prober() ? 1.0 : 0.0).orElse(Double.NaN));
      nodes.set(c.map(x -> (double) x.inView()).orElse(Double.NaN));
      waiting.set(c.map(x -> (double) x.clusterWaiting()).orElse(Double.NaN));
    }

    void restart() {
      show(Optional.empty());
      wasCoordinated = false;
    }

    void onChange(BudgetEvent.CoordinationChanged e) {
      if (wasCoordinated && !e.coordinated()) {
        losses.increment();
      }
      wasCoordinated = e.coordinated();
    }
  }
}
