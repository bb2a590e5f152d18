package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import org.junit.jupiter.api.Test;

/** A node's replicated entry carries its report through Pekko's built-in string serializer. */
final class ReplicatedCoordinationEntryTest {

  @Test
  void anEntryDecodesToTheReportItWasMadeOf() {
    Report ramping = new Report(42, State.RAMPING, 17, 123.5, 3, Double.NaN);
    assertEquals(
        ramping, ReplicatedCoordination.decode(42, ReplicatedCoordination.encode(ramping, 9)));
    Report steady = new Report(-7, State.STEADY, 0, Double.POSITIVE_INFINITY, 0, Double.NaN);
    assertEquals(
        steady, ReplicatedCoordination.decode(-7, ReplicatedCoordination.encode(steady, 1)));
  }

  @Test
  void anEntryCarriesTheMeasuredGoodput_andAnOlderEntryWithoutOneHasNone() {
    Report measured = new Report(5, State.RAMPING, 0, 240.0, 2, 212.5);
    assertEquals(
        measured, ReplicatedCoordination.decode(5, ReplicatedCoordination.encode(measured, 4)));
    assertEquals(
        new Report(5, State.RAMPING, 0, 240.0, 2, Double.NaN),
        ReplicatedCoordination.decode(5, "RAMPING 0 240.0 2 4"));
  }

  @Test
  void anEntryOfAnotherFormat_isIgnored() {
    assertNull(ReplicatedCoordination.decode(1, "something else"));
    assertNull(ReplicatedCoordination.decode(1, "FLYING 1 2 3 4"));
    assertNull(ReplicatedCoordination.decode(1, "HOLDING -1 0 0 1"));
    assertNull(ReplicatedCoordination.decode(1, "RAMPING 1 2.0 0 1 -3.0"));
  }
}
