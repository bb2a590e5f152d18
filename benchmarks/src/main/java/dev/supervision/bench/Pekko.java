package dev.supervision.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;

/** Actor-system plumbing shared by the benchmarks. */
final class Pekko {

  private Pekko() {}

  /** Pekko's defaults, quieter: warnings only, no dead-letter logging. */
  static Config config() {
    return ConfigFactory.parseString(
            "pekko.loglevel = WARNING\n"
                + "pekko.log-dead-letters = off\n"
                + "pekko.log-dead-letters-during-shutdown = off\n"
                // stopping a million actors on 2 busy cores takes longer than the default 10 s
                + "pekko.coordinated-shutdown.phases.actor-system-terminate.timeout = 120 s\n")
        .withFallback(ConfigFactory.load());
  }

  /** Terminates a system and waits up to a minute for it. */
  static void terminate(ActorSystem<?> system) throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(1, TimeUnit.MINUTES);
  }

  /** Formats a duration in seconds with millisecond precision. */
  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.3f s", d.toNanos() / 1e9);
  }
}
