package dev.supervision.backoff.persistence;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * A small event-sourced entity for the tests: its events are strings and its state is the events
 * joined by commas. An entry that starts with {@code snap} is followed by a snapshot. Each
 * recovery is reported to {@code recoveries} as {@code recovered:<state>}, each failed one as {@code
 * recovery-failed}.
 */
final class Ledger extends EventSourcedBehavior<Ledger.Command, String, String> {

  sealed interface Command {}

  /** Persists {@code entry}; replies with the state after it. */
  record Append(String entry, ActorRef<String> replyTo) implements Command {}

  /** Replies with the state. */
  record Get(ActorRef<String> replyTo) implements Command {}

  /** The command handler throws {@code failure}. */
  record Throw(RuntimeException failure) implements Command {}

  /** An event the event handler throws on (a bug in the event handler, met at every replay). */
  static final String POISON = "poison";

  private final ActorRef<String> recoveries;

  Ledger(String persistenceId, ActorRef<String> recoveries) {
    super(PersistenceId.ofUniqueId(persistenceId));
    this.recoveries = recoveries;
  }

  Ledger(
      String persistenceId,
      ActorRef<String> recoveries,
      org.apache.pekko.actor.typed.BackoffSupervisorStrategy onPersistFailure) {
    super(PersistenceId.ofUniqueId(persistenceId), onPersistFailure);
    this.recoveries = recoveries;
  }

  @Override
  public String emptyState() {
    return "";
  }

  @Override
  public CommandHandler<Command, String, String> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(
            Append.class, (state, c) -> Effect().persist(c.entry()).thenReply(c.replyTo(), s -> s))
        .onCommand(Get.class, (state, c) -> Effect().reply(c.replyTo(), state))
        .onCommand(
            Throw.class,
            (state, c) -> {
              throw c.failure();
            })
        .build();
  }

  @Override
  public EventHandler<String, String> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onAnyEvent(
            (state, event) -> {
              if (event.equals(POISON)) {
                throw new IllegalStateException("the event handler cannot apply " + event);
              }
              return state.isEmpty() ? event : state + "," + event;
            });
  }

  @Override
  public SignalHandler<String> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), state -> recoveries.tell("recovered:" + state))
        .onSignal(RecoveryFailed.class, (state, failed) -> recoveries.tell("recovery-failed"))
        .build();
  }

  @Override
  public boolean shouldSnapshot(String state, String event, long sequenceNr) {
    return event.startsWith("snap");
  }
}
