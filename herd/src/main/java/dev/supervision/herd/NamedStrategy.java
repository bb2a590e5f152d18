package dev.supervision.herd;

/** A row's strategy with its id and description fixed when it is made. */
abstract class NamedStrategy implements HerdStrategy {
  private final String id;
  private final String description;

  /**
   * A strategy.
   *
   * @param id the row's id
   * @param description the row in words
   */
  NamedStrategy(String id, String description) {
    this.id = id;
    this.description = description;
  }

  @Override
  public final String id() {
    return id;
  }

  @Override
  public final String description() {
    return description;
  }
}
