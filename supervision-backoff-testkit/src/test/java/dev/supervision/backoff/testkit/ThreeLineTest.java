package dev.supervision.backoff.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The test the documentation shows: fail it, expect the restart, advance to it, expect it. */
final class ThreeLineTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  @Test
  void aFailedActorRestartsExactlyAfterItsDrawnDelay_withFullJitter() {
    BackoffProbe probe = kit.createProbe();
    TestProbe<String> echo = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10))
            .withListener(probe.listener());
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(Child.create(echo.ref()), policy));

    actor.tell("fail");
    actor.tell("after"); // stashed during the backoff
    assertEquals(1, probe.expectRestartScheduled().attempt());
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    echo.expectMessage("after");
  }
}
