package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Behaviour point 1 and 2: restarts come after the policy's delays, timed by ManualTime. */
final class BackoffSupervisorTest {

  static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  static final ManualTime time = ManualTime.get(testKit.system());

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @Test
  void restartsExactlyAfterEachUnjitteredDelay() {
    TestProbe<String> probe = testKit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withResetAfter(Duration.ofHours(1));
    ActorRef<String> actor = testKit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    long[] expected = {100, 200, 400, 800, 1000, 1000};
    for (long ms : expected) {
      actor.tell("fail");
      probe.expectMessage("preRestart");
      time.timePasses(Duration.ofMillis(ms - 1));
      probe.expectNoMessage(Duration.ofMillis(150));
      time.timePasses(Duration.ofMillis(1));
      probe.expectMessage("started");
    }
    actor.tell("hello");
    assertEquals("got:hello", probe.receiveMessage());
  }
}
