package dev.supervision.backoff.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.Jitter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Found by the jqwik property {@code scheduleWithFixedDrawsKeepsEveryDelayInItsRange} (seed
 * -3249405366015547343, during a PIT run): with {@code minBackoff} above 2^53 ns (about 104 days),
 * decorrelated jitter computed {@code min + u * span} in {@code double}, which rounds {@code min} to
 * an even neighbour, so a draw of 0 gave {@code minBackoff - 1 ns}. Equal jitter had the same kind
 * of edge at both ends of its range (found by a search over bounds above 2^53 for the inputs
 * below). The ends of each range are now kept in {@code long} arithmetic.
 */
final class JitteredDelaysStayInTheirRangeAbove104DaysTest {

  private static final double JUST_BELOW_ONE = Math.nextDown(1.0);

  private static long delay(
      Jitter jitter, long min, long max, long bound, long previous, double draw) {
    return jitter
        .delay(
            new Jitter.Step(
                1,
                Duration.ofNanos(min),
                Duration.ofNanos(max),
                Duration.ofNanos(bound),
                Duration.ofNanos(previous)),
            draw)
        .toNanos();
  }

  @Test
  void decorrelatedWithADrawOfZeroIsExactlyMinBackoff() {
    long min = 9007199254740997L; // the shrunk sample: 2^53 + 5, not representable as a double
    long max = 9007199255442413L;
    assertEquals(min, delay(Jitter.decorrelated(), min, max, max, max, 0.0));
  }

  @Test
  void equalJitterNeverStartsBelowHalfTheBound() {
    long bound = (1L << 54) + 2; // rounds down to 2^54 as a double: half of that is 1 ns short
    assertEquals(bound / 2, delay(Jitter.equal(), 1, bound + 1000, bound, 1, 0.0));
  }

  @Test
  void equalJitterNeverExceedsTheBound() {
    long bound = 72057594037927992L; // about 2^56; as a double it rounds up by 8 ns
    long high = delay(Jitter.equal(), 1, bound + 1000, bound, 1, JUST_BELOW_ONE);
    assertTrue(high <= bound, "equal jitter " + high + " above its bound " + bound);
  }
}
