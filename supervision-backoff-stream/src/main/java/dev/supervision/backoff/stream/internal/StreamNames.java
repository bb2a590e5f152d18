package dev.supervision.backoff.stream.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * How a restartable stage names itself: its stage actor (the {@code actor()} of its events) is
 * named {@code backoff-stream:<url-encoded name>}; Pekko puts a unique prefix before it ({@code
 * $$a-}), so two streams of one name still get two actors.
 */
public final class StreamNames {

  /** What the stage actor's name starts with, after Pekko's unique prefix. */
  static final String PREFIX = "backoff-stream:";

  private StreamNames() {}

  /**
   * The stream's name from a stage actor's path name, if it is the stage actor of a restartable
   * stage of this module.
   *
   * @param actorName the last element of the actor's path
   * @return the stream's name, or empty
   */
  public static Optional<String> fromActorName(String actorName) {
    int at = actorName.indexOf(PREFIX);
    if (!actorName.startsWith("$$") || at < 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          URLDecoder.decode(actorName.substring(at + PREFIX.length()), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * A 64-bit FNV-1a hash of a stream's name, mixed into a seeded policy's seed (as the core mixes
   * in an actor's path) so that streams of one seeded policy and different names draw different
   * delays, and a stream of one name draws the same ones in every run.
   *
   * @param name the stream's name
   * @return the hash
   */
  public static long hash(String name) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < name.length(); i++) {
      h ^= name.charAt(i);
      h *= 0x100000001b3L;
    }
    return h;
  }
}
