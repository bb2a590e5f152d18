package dev.supervision.bench;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSelectionMessage;
import org.apache.pekko.actor.WrappedMessage;
import org.apache.pekko.remote.artery.RemoteInstrument;

/**
 * Counts every message that Artery sends, with its size on the wire, by kind: an Artery {@link
 * RemoteInstrument} (configured under {@code pekko.remote.artery.advanced.instruments}), which
 * Artery calls for each message its encoders serialize, on every stream (control, ordinary,
 * large), with the size of the whole envelope (Pekko's headers included; not the 4-byte TCP frame
 * header). It writes no metadata, so it adds nothing to the messages. The counts are JVM-wide: the
 * harness divides them by the number of nodes.
 */
public final class RemoteTraffic extends RemoteInstrument {

  /** What a message is. */
  enum Kind {
    /** Distributed Data messages of the default replicator, which only the coordination uses. */
    COORDINATION("Distributed Data: the coordination (default replicator)"),
    /** Distributed Data messages of other replicators (the typed receptionist's own). */
    DDATA_OTHER("Distributed Data: other replicators (receptionist)"),
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

  static {
    for (Kind k : Kind.values()) {
      BY_KIND.put(k, new Count());
    }
  }

  /** Made by Artery, once per encoder and decoder. */
  public RemoteTraffic() {}

  /** A snapshot: messages and bytes per kind and per message class. */
  record Snapshot(Map<Kind, long[]> kinds, Map<String, long[]> classes) {
    Snapshot minus(Snapshot before) {
      Map<Kind, long[]> k = new TreeMap<>();
      kinds.forEach((kind, v) -> k.put(kind, diff(v, before.kinds.get(kind))));
      Map<String, long[]> c = new TreeMap<>();
      classes.forEach((name, v) -> c.put(name, diff(v, before.classes.get(name))));
      return new Snapshot(k, c);
    }

    private static long[] diff(long[] now, long[] then) {
      return then == null ? now.clone() : new long[] {now[0] - then[0], now[1] - then[1]};
    }
  }

  static Snapshot snapshot() {
    Map<Kind, long[]> k = new TreeMap<>();
    BY_KIND.forEach((kind, c) -> k.put(kind, new long[] {c.messages.sum(), c.bytes.sum()}));
    Map<String, long[]> c = new TreeMap<>();
    BY_CLASS.forEach((name, v) -> c.put(name, new long[] {v.messages.sum(), v.bytes.sum()}));
    return new Snapshot(k, c);
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
    Kind kind = kind(name, path);
    Count byKind = BY_KIND.get(kind);
    byKind.messages.increment();
    byKind.bytes.add(size);
    Count byClass = BY_CLASS.computeIfAbsent(kind.name() + " " + shortName(name), x -> new Count());
    byClass.messages.increment();
    byClass.bytes.add(size);
  }

  private static Kind kind(String className, String path) {
    if (className.startsWith("org.apache.pekko.cluster.ddata.")) {
      return path.contains("ddataReplicator") ? Kind.COORDINATION : Kind.DDATA_OTHER;
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
    // sent messages are counted; in one JVM every message sent is also received
  }
}
