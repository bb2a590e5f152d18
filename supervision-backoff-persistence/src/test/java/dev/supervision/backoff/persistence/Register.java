package dev.supervision.backoff.persistence;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.state.RecoveryCompleted;
import org.apache.pekko.persistence.typed.state.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.state.javadsl.DurableStateBehavior;
import org.apache.pekko.persistence.typed.state.javadsl.SignalHandler;

/**
 * A small durable-state entity for the tests: its state is the entries appended so far, joined by
 * commas. Each recovery is reported to {@code recoveries} as {@code recovered:<state>}.
 */
final class Register extends DurableStateBehavior<Register.Command, String> {

  sealed interface Command {}

  /** Stores the state with {@code entry} appended; replies with it. */
  record Append(String entry, ActorRef<String> replyTo) implements Command {}

  /** Replies with the state. */
  record Get(ActorRef<String> replyTo) implements Command {}

  private final ActorRef<String> recoveries;

  Register(String persistenceId, ActorRef<String> recoveries) {
    super(PersistenceId.ofUniqueId(persistenceId));
    this.recoveries = recoveries;
  }

  @Override
  public String emptyState() {
    return "";
  }

  @Override
  public CommandHandler<Command, String> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(
            Append.class,
            (state, c) ->
                Effect()
                    .persist(state.isEmpty() ? c.entry() : state + "," + c.entry())
                    .thenReply(c.replyTo(), s -> s))
        .onCommand(Get.class, (state, c) -> Effect().reply(c.replyTo(), state))
        .build();
  }

  @Override
  public SignalHandler<String> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), state -> recoveries.tell("recovered:" + state))
        .build();
  }
}
