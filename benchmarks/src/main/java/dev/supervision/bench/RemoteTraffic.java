package dev.supervision.bench;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSelectionMessage;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.WrappedMessage;
import org.apache.pekko.remote.artery.RemoteInstrument;

/**
 * Counts every message that Artery sends, with its size on the wire, by kind: an Artery {@link
 * RemoteInstrument} (configured under {@code pekko.remote.artery.advanced.instruments}), which
 * Artery calls for each message its encoders serialize, on every stream (control, ordinary,
 * large), with the size of the whole envelope (Pekko's headers included; not the 4-byte TCP frame
 * header). It writes no metadata, so it adds nothing to the messages. The counts of messages sent
 * are JVM-wide: the harness divides them by the number of nodes. Artery makes an instrument per
 * actor system (with the system), so the messages one node sends and receives can be counted apart:
 * those of the learner's node ({@link #learner(Address)}), in and out.
 */
public final class RemoteTraffic extends RemoteInstrument {

  /** What a message is. */
  enum Kind {
    /**
     * The learner's protocol ({@code dev.supervision.backoff.cluster.LearnerProtocol}): a node's
     * reports to the learner, the learner's leases to the nodes.
     */
    COORDINATION("coordination: the learner's reports and leases"),
    /**
     * The learner's Cluster Singleton machinery: the proxies' {@code Identify} (by actor selection
     * of the singleton's path) and its answers, watches of the singleton, the managers' hand-over
     * messages ({@code org.apache.pekko.cluster.singleton}).
     */
    SINGLETON("coordination: the learner's singleton manager and proxy"),
    /** Distributed Data messages (no longer the coordination's: the typed receptionist's own). */
    DDATA_OTHER("Distributed Data (receptionist; not the coordination)"),
    /** The cluster's failure detector heartbeats. */
    CLUSTER_HEARTBEAT("cluster heartbeats"),
    /** The cluster's membership gossip and everything else of the cluster core. */
    CLUSTER_GOSSIP("cluster gossip and membership"),
    /** Artery's own messages: its heartbeats, handshakes, system message acks, compression. */
    REMOTING("Artery control (heartbeats, acks, compression)"),
    /** Anything else. */
    OTHER("other");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  /** Messages and bytes of one kind or one class. */
  static final class Count {
    final LongAdder messages = new LongAdder();
    final LongAdder bytes = new LongAdder();
  }

  private static final Map<Kind, Count> BY_KIND = new ConcurrentHashMap<>();
  private static final Map<String, Count> BY_CLASS = new ConcurrentHashMap<>();
  private static final Map<String, Count> LEARNER_OUT = new ConcurrentHashMap<>();
  private static final Map<String, Count> LEARNER_IN = new ConcurrentHashMap<>();
  private static volatile Address learner;

  static {
    for (Kind k : Kind.values()) {
      BY_KIND.put(k, new Count());
    }
  }

  private final ExtendedActorSystem system;
  private volatile Address self;

  /**
   * Made by Artery, once per encoder and decoder of each actor system.
   *
   * @param system the actor system whose messages this instrument sees
   */
  public RemoteTraffic(ExtendedActorSystem system) {
    this.system = system;
  }

  /**
   * Counts, from now on, the messages that the node at this address sends and receives apart
   * (the learner's node: the cluster's oldest member).
   *
   * @param address the node's address, as its cluster member has it
   */
  static void learner(Address address) {
    learner = address;
  }

  /**
   * A snapshot: messages and bytes per kind and per message class ({@code "KIND Class"}) sent by
   * every node of this JVM, and per message class sent ({@code learnerOut}) and received ({@code
   * learnerIn}) by the learner's node.
   */
  record Snapshot(
      Map<Kind, long[]> kinds,
      Map<String, long[]> classes,
      Map<String, long[]> learnerOut,
      Map<String, long[]> learnerIn) {
    Snapshot minus(Snapshot before) {
      Map<Kind, long[]> k = new TreeMap<>();
      kinds.forEach((kind, v) -> k.put(kind, diff(v, before.kinds.get(kind))));
      return new Snapshot(
          k,
          minus(classes, before.classes),
          minus(learnerOut, before.learnerOut),
          minus(learnerIn, before.learnerIn));
    }

    private static Map<String, long[]> minus(Map<String, long[]> now, Map<String, long[]> then) {
      Map<String, long[]> c = new TreeMap<>();
      now.forEach((name, v) -> c.put(name, diff(v, then.get(name))));
      return c;
    }

    private static long[] diff(long[] now, long[] then) {
      return then == null ? now.clone() : new long[] {now[0] - then[0], now[1] - then[1]};
    }

    /**
     * Messages and bytes of one kind in a map by {@code "KIND Class"}.
     *
     * @param byClass the map
     * @param kind the kind
     * @return messages and bytes
     */
    static long[] ofKind(Map<String, long[]> byClass, Kind kind) {
      long[] out = new long[2];
      byClass.forEach(
          (name, v) -> {
            if (name.startsWith(kind.name() + " ")) {
              out[0] += v[0];
              out[1] += v[1];
            }
          });
      return out;
    }
  }

  static Snapshot snapshot() {
    Map<Kind, long[]> k = new TreeMap<>();
    BY_KIND.forEach((kind, c) -> k.put(kind, new long[] {c.messages.sum(), c.bytes.sum()}));
    return new Snapshot(k, read(BY_CLASS), read(LEARNER_OUT), read(LEARNER_IN));
  }

  private static Map<String, long[]> read(Map<String, Count> counts) {
    Map<String, long[]> c = new TreeMap<>();
    counts.forEach((name, v) -> c.put(name, new long[] {v.messages.sum(), v.bytes.sum()}));
    return c;
  }

  /** Whether this instrument's system is the learner's node. */
  private boolean atLearner() {
    Address l = learner;
    if (l == null) {
      return false;
    }
    Address a = self;
    if (a == null) {
      a = system.provider().getDefaultAddress();
      if (a.port().isEmpty()) {
        return false; // not bound yet
      }
      self = a;
    }
    return l.equals(a);
  }

  private static String what(ActorRef recipient, Object message) {
    String path = recipient == null ? "" : recipient.path().toStringWithoutAddress();
    Object m = message;
    while (true) {
      if (m instanceof ActorSelectionMessage sel) {
        path = path + "/" + sel.elements().mkString("/");
      }
      if (m instanceof WrappedMessage w) {
        m = w.message();
      } else {
        break;
      }
    }
    String name = m.getClass().getName();
    return kind(name, path).name() + " " + shortName(name);
  }

  private static void count(Map<String, Count> counts, String key, int size) {
    Count c = counts.computeIfAbsent(key, x -> new Count());
    c.messages.increment();
    c.bytes.add(size);
  }

  @Override
  public byte identifier() {
    return 17; // 1-7 are Pekko's, 0 is Cinnamon's
  }

  @Override
  public void remoteWriteMetadata(
      ActorRef recipient, Object message, ActorRef sender, ByteBuffer buffer) {
    // nothing: counting needs no metadata
  }

  @Override
  public void remoteMessageSent(
      ActorRef recipient, Object message, ActorRef sender, int size, long time) {
    String key = what(recipient, message);
    Count byKind = BY_KIND.get(Kind.valueOf(key.substring(0, key.indexOf(' '))));
    byKind.messages.increment();
    byKind.bytes.add(size);
    count(BY_CLASS, key, size);
    if (atLearner()) {
      count(LEARNER_OUT, key, size);
    }
  }

  /** The learner's singleton's name: its manager's and its proxy's names contain it. */
  private static final String SINGLETON_NAME = "supervision-backoff-learner-";

  private static Kind kind(String className, String path) {
    if (className.startsWith("dev.supervision.backoff.cluster.LearnerProtocol")) {
      return Kind.COORDINATION;
    }
    if (path.contains(SINGLETON_NAME)
        || className.startsWith("org.apache.pekko.cluster.singleton.")) {
      return Kind.SINGLETON;
    }
    if (className.startsWith("org.apache.pekko.cluster.ddata.")) {
      return Kind.DDATA_OTHER;
    }
    if (className.contains("Heartbeat") && className.startsWith("org.apache.pekko.cluster.")) {
      return Kind.CLUSTER_HEARTBEAT;
    }
    if (className.startsWith("org.apache.pekko.cluster.")) {
      return Kind.CLUSTER_GOSSIP;
    }
    if (className.startsWith("org.apache.pekko.remote.")) {
      return Kind.REMOTING;
    }
    return Kind.OTHER;
  }

  private static String shortName(String className) {
    int dot = className.lastIndexOf('.');
    return className.substring(dot + 1);
  }

  @Override
  public void remoteReadMetadata(
      ActorRef recipient, Object message, ActorRef sender, ByteBuffer buffer) {
    // nothing was written
  }

  @Override
  public void remoteMessageReceived(
      ActorRef recipient, Object message, ActorRef sender, int size, long time) {
    // every node's sent messages are counted; of the received only the learner's node's
    if (atLearner()) {
      count(LEARNER_IN, what(recipient, message), size);
    }
  }
}
