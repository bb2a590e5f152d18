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
import org.slf4j.event.Level;

/**
 * INTERNAL API: the aggregated log lines. One actor per system collects the reports of a window
 * and writes one line per kind, key and level, with the stack trace only if the key was not in the
 * window before (a window without the key ends its episode). Timed by the scheduler, no clock.
 */
public final class HerdLog implements Extension {

  static final Duration WINDOW = Duration.ofSeconds(1);

  private static final ExtensionId<HerdLog> ID =
      new ExtensionId<>() {
        @Override
        public HerdLog createExtension(ActorSystem<?> system) {
          return new HerdLog(system);
        }
      };

  enum Kind {
    FAILED,
    STOPPED,
    GAVE_UP
  }

  /** {@code key}: the cause's class or the reason; {@code trace}: its line's, or null. */
  record Report(
      Kind kind, String key, Level level, String description, Throwable trace, String actor) {}

  private record Flush() {}

  private final ActorRef<Object> collector;

  private HerdLog(ActorSystem<?> system) {
    this.collector =
        system.systemActorOf(collector(), "supervision-backoff-herd-log", Props.empty());
  }

  public static HerdLog get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  void report(Report report) {
    collector.tell(report);
  }

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
                  if (window.isEmpty() && seenBefore.isEmpty()) { // else a flush is due already
                    ctx.scheduleOnce(WINDOW, ctx.getSelf(), new Flush());
                  }
                  Entry entry =
                      window.computeIfAbsent(
                          report.kind() + "|" + report.key() + "|" + report.level(),
                          k -> new Entry(report));
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
                  if (!seenBefore.isEmpty()) {
                    // flushed even if empty: that ends the episodes, a returning cause is new
                    ctx.scheduleOnce(WINDOW, ctx.getSelf(), new Flush());
                  }
                }
                return Behaviors.same();
              });
        });
  }

  private static void write(Entry entry, boolean continues) {
    Report first = entry.first;
    String format =
        switch (first.kind()) {
          case FAILED ->
              "{} supervised actors failed {} times in {} ms, restarting with backoff:"
                  + " {} (one of them: [{}]; each failure is logged at DEBUG)";
          case STOPPED ->
              "{} supervised actors stopped themselves {} times in {} ms, restarting"
                  + " with backoff{} (one of them: [{}]; each stop is logged at DEBUG)";
          case GAVE_UP ->
              "{} supervised actors gave up {} times in {} ms and stopped after"
                  + " their restarts {} (one of them: [{}]; each actor's line is logged at DEBUG)";
        };
    SupervisorLog.write(
        SupervisorLog.LOG,
        first.level(),
        continues ? null : first.trace(),
        first.actor(),
        format,
        entry.actors.size(),
        entry.failures,
        WINDOW.toMillis(),
        first.description(),
        first.actor());
  }
}
