package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.AllDeadLetters;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.UnhandledMessage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hundreds of supervised actors get random message sequences; some messages throw (in handling, and
 * then again in {@code PreRestart}), some starts throw in {@code setup}, some actors fail in a
 * {@code Terminated} signal or a {@code PostStop}, stashes overflow, and a fifth of the actors are
 * stopped from outside in the middle of a backoff. At the end every message sent is accounted for
 * exactly once: handled by the child (in the order sent; this includes the message that failed), or
 * published on the event stream as {@link Dropped} or {@link DeadLetter}.
 *
 * <p>The scripts come from one seed, printed at the start and in every failure; replay with {@code
 * -Dfaults.seed=N}. Thread interleavings (when a {@code Terminated} arrives) are not replayed, but the
 * accounting must hold for every interleaving. Size: {@code -Dfaults.actors} (default 300).
 */
final class FaultInjectionAccountsForEveryMessageTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  enum Kind {
    /** Handled normally. */
    OK,
    /** Throws (restartable). */
    THROW,
    /** Throws a failure that some actors' policies declare permanent. */
    THROW_PERMANENT,
    /** Throws, and the failed incarnation then throws in PreRestart too. */
    THROW_AND_PRERESTART_THROWS,
    /** Spawns a child that stops at once and watches it: the Terminated signal then throws. */
    FAIL_LATER_IN_TERMINATED,
    /** Returns Behaviors.stopped(): every later message goes to dead letters. */
    STOP_SELF
  }

  record Msg(int actor, int seq, Kind kind) {}

  static final class Boom extends RuntimeException {
    Boom(String message) {
      super(message, null, false, false);
    }
  }

  static final class Permanent extends RuntimeException {
    Permanent(String message) {
      super(message, null, false, false);
    }
  }

  /** What happened to one actor's messages, written by the actor, the listener and the event stream. */
  static final class Ledger {
    final ConcurrentLinkedQueue<Integer> handled = new ConcurrentLinkedQueue<>();
    final Set<Integer> failed = ConcurrentHashMap.newKeySet();
    final ConcurrentLinkedQueue<Integer> dropped = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Integer> deadLetters = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Object> unhandled = new ConcurrentLinkedQueue<>();
    final AtomicInteger starts = new AtomicInteger();
    final AtomicInteger restartsScheduled = new AtomicInteger();
    final AtomicInteger restarted = new AtomicInteger();
    volatile boolean inBackoff;
    volatile boolean gone;
    volatile boolean stoppedDuringBackoff;

    int accounted() {
      return handled.size() + dropped.size() + deadLetters.size();
    }
  }

  /** One actor's script, all drawn from the seed. */
  record Script(
      List<Kind> messages,
      int phaseA,
      Set<Integer> failingStarts,
      boolean postStopThrows,
      boolean stopMidBackoff,
      BackoffPolicy policy) {}

  /** Global counters that prove each fault was really injected. */
  static final AtomicInteger setupFailures = new AtomicInteger();

  static final AtomicInteger preRestartThrows = new AtomicInteger();
  static final AtomicInteger terminatedThrows = new AtomicInteger();
  static final AtomicInteger postStopThrows = new AtomicInteger();

  @Test
  void everyMessageIsHandledOnceInOrderOrPublishedAsDroppedOrDeadLetter() throws Exception {
    long seed = Long.getLong("faults.seed", new SplittableRandom().nextLong());
    int actors = Integer.getInteger("faults.actors", 300);
    System.out.println(
        "FaultInjection seed = "
            + seed
            + " (replay with -Dfaults.seed="
            + seed
            + "), actors = "
            + actors);
    String replay = " [seed " + seed + ", replay with -Dfaults.seed=" + seed + "]";
    SplittableRandom random = new SplittableRandom(seed);

    Ledger[] ledgers = new Ledger[actors];
    Script[] scripts = new Script[actors];
    for (int i = 0; i < actors; i++) {
      ledgers[i] = new Ledger();
      scripts[i] = script(random, ledgers[i], i % 5 == 0);
    }
    subscribeToDeadLetters(ledgers);

    List<ActorRef<Msg>> refs = new ArrayList<>();
    for (int i = 0; i < actors; i++) {
      refs.add(
          kit.spawn(
              BackoffSupervisor.wrap(child(scripts[i], ledgers[i]), scripts[i].policy()),
              "fi-" + i));
    }
    int sent = 0;
    // phase A: the first part of every script, round-robin over the actors
    sent += sendRange(refs, scripts, true);
    // stop the chosen actors while they wait for their restart (their first message failed)
    for (int i = 0; i < actors; i++) {
      if (scripts[i].stopMidBackoff()) {
        awaitTrue(
            ledgers[i],
            l -> l.inBackoff || l.gone,
            "actor " + i + " never entered its backoff" + replay);
        kit.testKit().stop(refs.get(i), Duration.ofSeconds(10));
      }
    }
    // phase B: the rest, while everything is still in backoff or running
    sent += sendRange(refs, scripts, false);

    // let the manual clock run until every message is accounted for
    int total = sent;
    // every restart is due within 170 ms, so 250 ms steps fire all pending ones; 12 steps without
    // progress mean that the rest is lost. What a step fired is handled by the actors after the
    // step returns, so on a loaded machine progress can lag the steps: the rest counts as lost
    // only when, besides, nothing was accounted for during 5 s of real time.
    int stepsWithoutProgress = 0;
    int before = -1;
    long progressAt = System.nanoTime();
    while (accounted(ledgers) < total) {
      int now = accounted(ledgers);
      stepsWithoutProgress = now == before ? stepsWithoutProgress + 1 : 0;
      if (now != before) {
        progressAt = System.nanoTime();
      }
      before = now;
      if (stepsWithoutProgress >= 12
          && System.nanoTime() - progressAt > Duration.ofSeconds(5).toNanos()) {
        fail(
            "only "
                + now
                + " of "
                + total
                + " messages are accounted for, and no progress for 12 steps:\n"
                + missing(ledgers, scripts)
                + replay);
      }
      kit.time().timePasses(Duration.ofMillis(250));
    }
    // give late duplicates a chance to show up
    kit.time().timePasses(Duration.ofSeconds(5));
    Thread.sleep(300);

    int stoppedMidBackoff = 0;
    int dropped = 0;
    int dead = 0;
    for (int i = 0; i < actors; i++) {
      Ledger l = ledgers[i];
      String who = "actor fi-" + i + replay;
      assertTrue(l.unhandled.isEmpty(), "unhandled messages " + l.unhandled + " for " + who);
      List<Integer> handled = new ArrayList<>(l.handled);
      for (int k = 1; k < handled.size(); k++) {
        assertTrue(
            handled.get(k - 1) < handled.get(k), "handled out of order " + handled + " by " + who);
      }
      int[] seen = new int[scripts[i].messages().size()];
      for (int seq : handled) {
        seen[seq]++;
      }
      for (int seq : l.dropped) {
        seen[seq]++;
      }
      for (int seq : l.deadLetters) {
        seen[seq]++;
      }
      for (int seq = 0; seq < seen.length; seq++) {
        if (seen[seq] != 1) {
          fail(
              "message "
                  + seq
                  + " ("
                  + scripts[i].messages().get(seq)
                  + ") of "
                  + who
                  + " accounted for "
                  + seen[seq]
                  + " times; handled "
                  + handled
                  + ", dropped "
                  + l.dropped
                  + ", dead letters "
                  + l.deadLetters);
        }
      }
      for (int seq : l.failed) {
        assertTrue(
            scripts[i].messages().get(seq) != Kind.OK,
            "an OK message failed: " + seq + " of " + who);
      }
      stoppedMidBackoff += l.stoppedDuringBackoff ? 1 : 0;
      dropped += l.dropped.size();
      dead += l.deadLetters.size();
    }
    System.out.printf(
        "FaultInjection: %d messages to %d actors: %d handled, %d dropped, %d dead letters; %d stopped during backoff, "
            + "%d setup failures, %d PreRestart throws, %d Terminated throws, %d PostStop throws%n",
        total,
        actors,
        total - dropped - dead,
        dropped,
        dead,
        stoppedMidBackoff,
        setupFailures.get(),
        preRestartThrows.get(),
        terminatedThrows.get(),
        postStopThrows.get());
    // the faults were really injected (with 300 actors each happens dozens of times)
    assertTrue(
        stoppedMidBackoff >= actors / 10,
        "too few actors stopped during a backoff: " + stoppedMidBackoff + replay);
    if (actors >= 200) { // below that a fault kind may by chance not occur at all
      assertTrue(dropped > 0, "no stash overflowed" + replay);
      assertTrue(setupFailures.get() > 0, "no setup failed" + replay);
      assertTrue(preRestartThrows.get() > 0, "no PreRestart threw" + replay);
      assertTrue(terminatedThrows.get() > 0, "no Terminated signal threw" + replay);
    }
    for (ActorRef<Msg> ref : refs) {
      kit.testKit().stop(ref, Duration.ofSeconds(10));
    }
  }

  private static Script script(SplittableRandom r, Ledger ledger, boolean stopMidBackoff) {
    int n = 20 + r.nextInt(41);
    List<Kind> messages = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int p = r.nextInt(100);
      Kind k =
          p < 70
              ? Kind.OK
              : p < 82
                  ? Kind.THROW
                  : p < 86
                      ? Kind.THROW_PERMANENT
                      : p < 92
                          ? Kind.THROW_AND_PRERESTART_THROWS
                          : p < 98 ? Kind.FAIL_LATER_IN_TERMINATED : Kind.STOP_SELF;
      messages.add(k);
    }
    if (stopMidBackoff) {
      messages.set(0, Kind.THROW); // so that the actor is in its backoff when it is stopped
    }
    Set<Integer> failingStarts = ConcurrentHashMap.newKeySet();
    for (int start = 1; start <= 12; start++) {
      if (r.nextInt(100) < (start == 1 ? 8 : 12)) {
        failingStarts.add(start);
      }
    }
    if (stopMidBackoff) {
      failingStarts.remove(1);
    }
    long minMs = 1 + r.nextInt(20);
    long maxMs = minMs + r.nextInt(150);
    Jitter[] jitters = {Jitter.full(), Jitter.equal(), Jitter.decorrelated(), Jitter.none()};
    int[] capacities = {0, 1, 2, 3, 5, 8, 1000, 1000, 1000, 1000};
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(minMs), Duration.ofMillis(maxMs))
            .withMultiplier(1.0 + r.nextDouble() * 3)
            .withJitter(jitters[r.nextInt(jitters.length)])
            .withStashCapacity(capacities[r.nextInt(capacities.length)])
            .withResetAfter(Duration.ofMillis(50 + r.nextInt(500)))
            .withRandomSeed(r.nextLong())
            .withLoggingEnabled(false)
            .withListener(event -> track(ledger, event));
    int limit = r.nextInt(10);
    if (limit < 4 && !stopMidBackoff) {
      policy = policy.withMaxRestarts(limit * 2);
    } else if (stopMidBackoff) {
      policy = policy.withMaxRestarts(1000);
    }
    if (r.nextBoolean()) {
      policy = policy.withStopOn(Permanent.class);
    }
    int phaseA = stopMidBackoff ? 1 + r.nextInt(n / 2) : r.nextInt(n);
    return new Script(
        List.copyOf(messages), phaseA, failingStarts, r.nextInt(4) == 0, stopMidBackoff, policy);
  }

  private static void track(Ledger ledger, BackoffEvent event) {
    if (event instanceof BackoffEvent.RestartScheduled) {
      ledger.restartsScheduled.incrementAndGet();
      ledger.inBackoff = true;
    } else if (event instanceof BackoffEvent.Restarted) {
      ledger.restarted.incrementAndGet();
      ledger.inBackoff = false;
    } else if (event instanceof BackoffEvent.GaveUp) {
      ledger.inBackoff = false;
      ledger.gone = true;
    } else if (event instanceof BackoffEvent.StoppedDuringBackoff) {
      ledger.inBackoff = false;
      ledger.gone = true;
      ledger.stoppedDuringBackoff = true;
    }
  }

  /** The failing child: every decision comes from the message or the script. */
  private static Behavior<Msg> child(Script script, Ledger ledger) {
    return Behaviors.setup(
        ctx -> {
          int start = ledger.starts.incrementAndGet();
          if (script.failingStarts().contains(start)) {
            setupFailures.incrementAndGet();
            throw new Boom("setup " + start);
          }
          boolean[] preRestartShouldThrow = {false};
          Set<ActorRef<Void>> watched = new java.util.HashSet<>();
          return Behaviors.receive(Msg.class)
              .onMessage(
                  Msg.class,
                  m -> {
                    ledger.handled.add(m.seq());
                    switch (m.kind()) {
                      case OK:
                        return Behaviors.same();
                      case THROW:
                        ledger.failed.add(m.seq());
                        throw new Boom("message " + m.seq());
                      case THROW_PERMANENT:
                        ledger.failed.add(m.seq());
                        throw new Permanent("message " + m.seq());
                      case THROW_AND_PRERESTART_THROWS:
                        ledger.failed.add(m.seq());
                        preRestartShouldThrow[0] = true;
                        throw new Boom("message " + m.seq() + ", PreRestart throws too");
                      case FAIL_LATER_IN_TERMINATED:
                        ActorRef<Void> shortLived =
                            ctx.spawnAnonymous(Behaviors.<Void>setup(c -> Behaviors.stopped()));
                        ctx.watch(shortLived);
                        watched.add(shortLived);
                        return Behaviors.same();
                      case STOP_SELF:
                        return Behaviors.stopped();
                      default:
                        throw new AssertionError(m.kind());
                    }
                  })
              .onSignal(
                  PreRestart.class,
                  s -> {
                    if (preRestartShouldThrow[0]) {
                      preRestartThrows.incrementAndGet();
                      throw new Boom("PreRestart");
                    }
                    return Behaviors.same();
                  })
              .onSignal(
                  Terminated.class,
                  t -> {
                    if (watched.remove(t.getRef())) {
                      terminatedThrows.incrementAndGet();
                      throw new Boom("Terminated");
                    }
                    return Behaviors.same();
                  })
              .onSignal(
                  PostStop.class,
                  s -> {
                    if (script.postStopThrows()) {
                      postStopThrows.incrementAndGet();
                      throw new Boom("PostStop");
                    }
                    return Behaviors.same();
                  })
              .build();
        });
  }

  private static int sendRange(List<ActorRef<Msg>> refs, Script[] scripts, boolean phaseA) {
    int sent = 0;
    int longest = 0;
    for (Script s : scripts) {
      longest = Math.max(longest, s.messages().size());
    }
    for (int k = 0; k < longest; k++) {
      for (int i = 0; i < refs.size(); i++) {
        Script s = scripts[i];
        boolean inRange = phaseA ? k < s.phaseA() : k >= s.phaseA();
        if (inRange && k < s.messages().size()) {
          refs.get(i).tell(new Msg(i, k, s.messages().get(k)));
          sent++;
        }
      }
    }
    return sent;
  }

  private static void subscribeToDeadLetters(Ledger[] ledgers) {
    ActorRef<AllDeadLetters> listener =
        kit.spawn(
            Behaviors.receive(AllDeadLetters.class)
                .onMessage(
                    AllDeadLetters.class,
                    d -> {
                      if (d.message() instanceof Msg m) {
                        Ledger l = ledgers[m.actor()];
                        if (d instanceof Dropped) {
                          l.dropped.add(m.seq());
                        } else if (d instanceof DeadLetter) {
                          l.deadLetters.add(m.seq());
                        } else {
                          l.unhandled.add(d);
                        }
                      } else if (d instanceof UnhandledMessage u && u.message() instanceof Msg m) {
                        ledgers[m.actor()].unhandled.add(u);
                      }
                      return Behaviors.same();
                    })
                .build(),
            "dead-letter-accountant");
    // the classic subscribe is synchronous: nothing published after this line is missed
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(listener), AllDeadLetters.class);
  }

  private static int accounted(Ledger[] ledgers) {
    int sum = 0;
    for (Ledger l : ledgers) {
      sum += l.accounted();
    }
    return sum;
  }

  private static String missing(Ledger[] ledgers, Script[] scripts) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < ledgers.length && sb.length() < 4000; i++) {
      Ledger l = ledgers[i];
      if (l.accounted() != scripts[i].messages().size()) {
        sb.append("fi-")
            .append(i)
            .append(": ")
            .append(scripts[i])
            .append(" handled ")
            .append(l.handled)
            .append(" dropped ")
            .append(l.dropped)
            .append(" dead ")
            .append(l.deadLetters)
            .append(" inBackoff ")
            .append(l.inBackoff)
            .append(" gone ")
            .append(l.gone)
            .append(" starts ")
            .append(l.starts)
            .append('\n');
      }
    }
    return sb.toString();
  }

  private static void awaitTrue(
      Ledger ledger, java.util.function.Predicate<Ledger> condition, String message)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.test(ledger)) {
      if (System.nanoTime() > deadline) {
        fail(message);
      }
      Thread.sleep(2);
    }
  }
}
