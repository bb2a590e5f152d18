package dev.supervision.examples;

import com.typesafe.config.Config;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.micrometer.BackoffMetrics;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A worker whose restart policy is read from {@code application.conf} when it starts, so that an
 * operator can change it without a rebuild; its restarts are counted in Micrometer and published
 * on the event stream, where {@link #restartMonitor(ActorRef)} picks them up.
 *
 * <pre>{@code
 * my-service.worker-backoff {
 *   min-backoff = 200ms
 *   max-backoff = 5s
 *   jitter = full
 *   publish-events = on
 *   budget = worker-db
 * }
 * supervision-backoff.budgets.worker-db { permits = 50, period = 1s }
 * }</pre>
 */
public final class ConfiguredWorkerExample {

  /** Where the worker's policy lives in the configuration. */
  public static final String POLICY_PATH = "my-service.worker-backoff";

  private ConfiguredWorkerExample() {}

  /** What the worker understands. */
  public sealed interface Command permits Process {}

  /**
   * Processes one item and replies {@code "done:<item>"}. The item {@code "flaky"} fails, as a call
   * to an unavailable resource would.
   *
   * @param item the item
   * @param replyTo who gets the reply
   */
  public record Process(String item, ActorRef<String> replyTo) implements Command {}

  /** A transient failure: the resource may be back after a backoff. */
  public static final class ResourceUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ResourceUnavailable(String item) {
      super("resource unavailable for " + item);
    }
  }

  /**
   * The supervised worker with its policy from {@link #POLICY_PATH}.
   *
   * @param metrics the application's metrics, bound to its registry; the worker's meters are
   *     tagged {@code name=worker}
   * @return the behavior
   */
  public static Behavior<Command> create(BackoffMetrics metrics) {
    return create(metrics, POLICY_PATH);
  }

  /**
   * The supervised worker with its policy from {@code policyPath}. A bad policy fails the actor as
   * it starts, with a message that names the setting's full path.
   *
   * @param metrics the application's metrics, bound to its registry; the worker's meters are
   *     tagged {@code name=worker}
   * @param policyPath the path of the policy block in the actor system's configuration
   * @return the behavior
   */
  public static Behavior<Command> create(BackoffMetrics metrics, String policyPath) {
    return Behaviors.setup(
        context -> {
          Config config = context.getSystem().settings().config();
          BackoffPolicy policy =
              BackoffPolicy.fromConfig(config, policyPath).withListener(metrics.listener("worker"));
          return BackoffSupervisor.wrap(worker(), policy);
        });
  }

  /** The unsupervised worker; started again on every restart. */
  private static Behavior<Command> worker() {
    return Behaviors.setup(
        context ->
            Behaviors.receive(Command.class)
                .onMessage(
                    Process.class,
                    p -> {
                      if (p.item().equals("flaky")) {
                        throw new ResourceUnavailable(p.item());
                      }
                      p.replyTo().tell("done:" + p.item());
                      return Behaviors.same();
                    })
                .build());
  }

  /**
   * An actor that subscribes to every scheduled restart on the event stream (published because the
   * policy says {@code publish-events = on}) and turns each into a one-line alert, for example for a
   * chat channel: {@code "[pekko://app/user/worker] restart 1 in 137 ms after ..."}.
   *
   * @param alerts where the alerts go
   * @return the behavior
   */
  public static Behavior<BackoffEvent.RestartScheduled> restartMonitor(ActorRef<String> alerts) {
    return Behaviors.setup(
        context -> {
          context
              .getSystem()
              .eventStream()
              .tell(
                  new EventStream.Subscribe<>(
                      BackoffEvent.RestartScheduled.class, context.getSelf()));
          return Behaviors.receiveMessage(
              event -> {
                alerts.tell(
                    "["
                        + event.actor().path()
                        + "] restart "
                        + event.attempt()
                        + " in "
                        + event.delay().toMillis()
                        + " ms after "
                        + event.cause());
                return Behaviors.same();
              });
        });
  }
}
