package dev.supervision.backoff.events;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.regex.Pattern;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The supervisor's lines that no other test pins: the restart (DEBUG), a stop during the backoff
 * (DEBUG, with the number of dropped messages), a final stop message during the backoff (DEBUG), a
 * {@code PreRestart} that throws (ERROR, with its cause) and a listener that throws (WARN, naming
 * the event). Each line names the actor's path.
 */
final class EveryLifecycleLineIsLoggedTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static BackoffPolicy unjittered() {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1));
  }

  private static String quoted(ActorRef<?> actor) {
    return Pattern.quote("Supervised actor [" + actor.path() + "]");
  }

  @Test
  void aRestartIsLoggedAtDebugWithItsAttempt() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), unjittered()));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    LoggingTestKit.empty()
        .withLogLevel(org.slf4j.event.Level.DEBUG)
        .withMessageRegex(quoted(actor) + Pattern.quote(" restarted (attempt 1)"))
        .expect(
            kit.system(),
            () -> {
              kit.time().timePasses(Duration.ofMillis(100));
              probe.expectMessage("started");
              return null;
            });
    kit.testKit().stop(actor);
  }

  @Test
  void aStopDuringTheBackoffIsLoggedAtDebugWithTheNumberOfDroppedMessages() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<Dropped> dropped = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(dropped.ref()), Dropped.class);
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()), unjittered().withStashCapacity(2)));
    probe.expectMessage("started");
    actor.tell("fail");
    actor.tell("kept-1");
    actor.tell("kept-2");
    actor.tell("overflow"); // dropped at once: proves that the two before it are in the stash
    probe.expectMessage("preRestart");
    dropped.expectMessageClass(Dropped.class);
    LoggingTestKit.empty()
        .withLogLevel(org.slf4j.event.Level.DEBUG)
        .withMessageRegex(
            quoted(actor)
                + Pattern.quote(" stopped during its backoff; 2 stashed messages dropped"))
        .expect(
            kit.system(),
            () -> {
              kit.testKit().stop(actor);
              return null;
            });
  }

  @Test
  void aPreRestartThatThrowsIsLoggedAtErrorWithItsCause() {
    TestProbe<String> probe = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Behaviors.receive(String.class)
                  .onMessage(
                      String.class,
                      m -> {
                        throw new TestChild.Boom(m);
                      })
                  .onSignal(
                      PreRestart.class,
                      s -> {
                        throw new IllegalStateException("cleanup failed");
                      })
                  .build();
            });
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, unjittered()));
    probe.expectMessage("started");
    LoggingTestKit.error(IllegalStateException.class)
        .withMessageRegex(
            quoted(actor) + Pattern.quote(" failed in PreRestart; the restart goes on"))
        .expect(
            kit.system(),
            () -> {
              actor.tell("fail");
              return null;
            });
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    kit.testKit().stop(actor);
  }

  @Test
  void aListenerThatThrowsIsLoggedAtWarnNamingTheListenerAndTheEvent() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffListener broken =
        new BackoffListener() {
          @Override
          public void onEvent(BackoffEvent event) {
            throw new IllegalStateException("listener bug");
          }

          @Override
          public String toString() {
            return "the-broken-listener";
          }
        };
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()), unjittered().withListener(broken)));
    probe.expectMessage("started");
    LoggingTestKit.warn("BackoffListener [the-broken-listener] threw on RestartScheduled[")
        .withCause(IllegalStateException.class)
        .expect(
            kit.system(),
            () -> {
              actor.tell("fail");
              probe.expectMessage("preRestart");
              return null;
            });
    kit.testKit().stop(actor);
  }

  @Test
  void aFinalStopMessageDuringTheBackoffIsLoggedAtDebug() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()),
                unjittered().withRestartOnStop(true).withFinalStopMessage("final"::equals)));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    LoggingTestKit.empty()
        .withLogLevel(org.slf4j.event.Level.DEBUG)
        .withMessageRegex(
            quoted(actor) + Pattern.quote(" got a final stop message during its backoff; it stops"))
        .expect(
            kit.system(),
            () -> {
              actor.tell("final");
              probe.expectTerminated(actor);
              return null;
            });
  }
}
