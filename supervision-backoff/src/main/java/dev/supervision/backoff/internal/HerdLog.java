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
 * INTERNAL API: the log of a herd. Supervisors whose policy aggregates its log lines report each
 * restarted failure, each restarted stop of the child and each give-up here instead of writing a
 * line of their own; one actor per actor system collects them for one window (a second) and writes
 * one line per kind, cause (or reason) and level: how many of them of how many actors, the cause,
 * one actor's path, and the stack trace of the first failure if the key was not seen in the window
 * before (then counts only, while the episode lasts: a window without the key ends it). The window is timed by the actor system's
 * scheduler ({@code ManualTime} drives it); no clock is read.
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

  /** What a reported line was about. */
  enum Kind {
    /** A failure that is restarted with backoff. */
    FAILED,
    /** A stop of the child that is restarted (restart on stop). */
    STOPPED,
    /** An actor that gave up and stops. */
    GAVE_UP
  }

  /**
   * One line of one actor: {@code key} groups it with the others of its kind and level (the cause's
   * class, or the reason), {@code trace} is the stack trace its line would carry (or null).
   */
  record Report(
      Kind kind, String key, Level level, String description, Throwable trace, String actor) {}

  private record Flush() {}

  private final ActorRef<Object> collector;

  private HerdLog(ActorSystem<?> system) {
    this.collector =
        system.systemActorOf(collector(), "supervision-backoff-herd-log", Props.empty());
  }

  /** The herd log of {@code system}. */
  public static HerdLog get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /** Reports one actor's line, to be counted with the others of its kind, key and level. */
  void report(Report report) {
    collector.tell(report);
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
                    // the next window is flushed even if nothing comes: an empty one ends the
                    // episodes, so that a cause that returns later is new again
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
