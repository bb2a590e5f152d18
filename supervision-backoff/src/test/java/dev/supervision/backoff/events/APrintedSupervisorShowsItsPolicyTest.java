package dev.supervision.backoff.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.BehaviorTestKit;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * What a supervised behavior prints (in Pekko's own messages and a debugger): the wrapped behavior
 * before it starts, the supervisor and its policy once the actor runs.
 */
final class APrintedSupervisorShowsItsPolicyTest {

  @Test
  void theWrapShowsItsChildAndPolicy_theRunningSupervisorItsPolicy() {
    BackoffPolicy policy = BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));
    Behavior<String> child = Behaviors.ignore();
    Behavior<String> wrapped = BackoffSupervisor.wrap(child, policy);
    assertEquals("BackoffSupervisor.wrap(" + child + ", " + policy + ")", wrapped.toString());
    BehaviorTestKit<String> actor = BehaviorTestKit.create(wrapped);
    assertEquals("BackoffSupervisor(" + policy + ")", actor.currentBehavior().toString());
  }
}
