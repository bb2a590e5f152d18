package dev.supervision.backoff.internal;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.MDC;
import org.slf4j.event.Level;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: the log of a herd. Supervisors whose policy aggregates its log lines report each
 * restarted failure here instead of writing a line of their own; one actor per actor system
 * collects them for one window (a second) and writes one line per cause and level: how many
 * failures of how many actors, the cause, one actor's path, and the stack trace of the first
 * failure if the cause was not seen in the window before (then counts only, while the episode
 * lasts). The window is timed by the actor system's scheduler ({@code ManualTime} drives it); no
 * clock is read.
 */
public final class HerdLog implements Extension {

  /** How long one window collects failures. */
  static final Duration WINDOW = Duration.ofSeconds(1);

  private static final ExtensionId<HerdLog> ID =
      new ExtensionId<>() {
        @Override
        public HerdLog createExtension(ActorSystem<?> system) {
          return new HerdLog(system);
        }
      };

  /** One restarted failure of one actor. */
  record Report(String cause, Level level, String description, Throwable failure, String actor) {}

  private record Flush() {}

  private final ActorRef<Object> collector;

  private HerdLog(ActorSystem<?> system) {
    this.collector =
        system.systemActorOf(collector(), "supervision-backoff-herd-log", Props.empty());
  }

  /**
   * The herd log of {@code system}.
   *
   * @param system the actor system
   * @return its herd log
   */
  public static HerdLog get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /**
   * Reports one restarted failure.
   *
   * @param level the level its own line would have had
   * @param description the failure as the line names it
   * @param failure the failure
   * @param actor the actor's path
   */
  void report(Level level, String description, Throwable failure, String actor) {
    collector.tell(new Report(failure.getClass().getName(), level, description, failure, actor));
  }

  /** What one window holds of one cause and level. */
  private static final class Entry {
    final Report first;
    final Set<String> actors = new HashSet<>();
    int failures;

    Entry(Report first) {
      this.first = first;
    }
  }

  private static Behavior<Object> collector() {
    return Behaviors.setup(
        ctx -> {
          Map<String, Entry> window = new LinkedHashMap<>();
          Set<String> seenBefore = new HashSet<>();
          return Behaviors.receiveMessage(
              m -> {
                if (m instanceof Report report) {
                  if (window.isEmpty()) {
                    ctx.scheduleOnce(WINDOW, ctx.getSelf(), new Flush());
                  }
                  Entry entry =
                      window.computeIfAbsent(
                          report.cause() + "|" + report.level(), k -> new Entry(report));
                  entry.failures++;
                  entry.actors.add(report.actor());
                } else if (m instanceof Flush) {
                  Set<String> seenNow = new HashSet<>();
                  for (Map.Entry<String, Entry> e : window.entrySet()) {
                    write(e.getValue(), seenBefore.contains(e.getKey()));
                    seenNow.add(e.getKey());
                  }
                  window.clear();
                  seenBefore.clear();
                  seenBefore.addAll(seenNow);
                }
                return Behaviors.same();
              });
        });
  }

  private static void write(Entry entry, boolean continues) {
    Report first = entry.first;
    if (!BackoffBehavior.LOG.isEnabledForLevel(first.level())) {
      return;
    }
    String previous = MDC.get("pekkoSource");
    MDC.put("pekkoSource", first.actor());
    try {
      BackoffBehavior.LOG
          .atLevel(first.level())
          .setCause(continues ? null : first.failure())
          .log(
              "{} supervised actors failed {} times in {} ms, restarting with backoff: {} (one of"
                  + " them: [{}]; each failure is logged at DEBUG)",
              entry.actors.size(),
              entry.failures,
              WINDOW.toMillis(),
              first.description(),
              first.actor());
    } catch (Throwable t) {
      if (!NonFatal.apply(t)) {
        throw t;
      }
    } finally {
      if (previous == null) {
        MDC.remove("pekkoSource");
      } else {
        MDC.put("pekkoSource", previous);
      }
    }
  }
}
