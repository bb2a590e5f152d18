package dev.supervision.backoff.stream.internal;

/** Checks of what the user's factory returns. */
final class Checks {

  private Checks() {}

  /**
   * The factory's graph, or a {@link NullPointerException} naming the factory if it returned null
   * (the inner stream then fails, as if the factory had thrown).
   */
  static <G> G created(G graph, String what) {
    if (graph == null) {
      throw new NullPointerException("factory returned null instead of a " + what);
    }
    return graph;
  }
}
