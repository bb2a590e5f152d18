package dev.supervision.backoff.stream;

import java.util.Objects;

/**
 * The {@link dev.supervision.backoff.BackoffEvent.RestartScheduled#cause() cause} of a restart that
 * no failure caused: the inner source or flow completed, or the inner sink or flow cancelled
 * without a failure, and the stage was made with {@code withBackoff} (which restarts on those too).
 * A listener tells such restarts from failures with {@code event.cause() instanceof
 * InnerStreamFinished}. It is never thrown and has no stack trace.
 */
public final class InnerStreamFinished extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The stream's name. */
  private final String streamName;

  /** Whether the inner stream cancelled (a sink, or a flow's input) rather than completed. */
  private final boolean cancelled;

  /**
   * A finish of the inner stream of {@code streamName}.
   *
   * @param streamName the stream's name
   * @param kind {@code source}, {@code flow} or {@code sink}
   * @param cancelled whether the inner stream cancelled rather than completed
   */
  public InnerStreamFinished(String streamName, String kind, boolean cancelled) {
    super(
        "the inner "
            + Objects.requireNonNull(kind, "kind must not be null")
            + " of ["
            + Objects.requireNonNull(streamName, "streamName must not be null")
            + "] "
            + (cancelled ? "cancelled" : "completed"),
        null,
        false,
        false);
    this.streamName = streamName;
    this.cancelled = cancelled;
  }

  /**
   * The name of the stream whose inner stream finished.
   *
   * @return the name given at construction, or the default name of the stage
   */
  public String streamName() {
    return streamName;
  }

  /**
   * Whether the inner stream cancelled (a sink, or a flow's input side) rather than completed.
   *
   * @return {@code true} for a cancellation, {@code false} for a completion
   */
  public boolean cancelled() {
    return cancelled;
  }
}
