package dev.supervision.examples;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** A stand-in for a shared resource that can go down: every call throws while it is down. */
public final class FlakyDatabase {

  /** Thrown by every call while the database is down. */
  public static final class Unavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the failure. */
    public Unavailable() {
      super("database unavailable", null, false, false);
    }
  }

  private final AtomicBoolean up = new AtomicBoolean(true);
  private final AtomicInteger calls = new AtomicInteger();

  /**
   * Opens a connection (counts as a call).
   *
   * @throws Unavailable while the database is down
   */
  public void connect() {
    call();
  }

  /**
   * Runs a query (counts as a call).
   *
   * @param sql the query
   * @return a fake result
   * @throws Unavailable while the database is down
   */
  public String query(String sql) {
    call();
    return "result of " + sql;
  }

  private void call() {
    calls.incrementAndGet();
    if (!up.get()) {
      throw new Unavailable();
    }
  }

  /**
   * Takes the database down or brings it back.
   *
   * @param isUp whether calls succeed
   */
  public void setUp(boolean isUp) {
    up.set(isUp);
  }

  /**
   * How many calls were made so far.
   *
   * @return the number of calls
   */
  public int calls() {
    return calls.get();
  }
}
