/**
 * The extension point: what another module plugs into the core or speaks to it. It stands on the
 * decision classes of {@link dev.supervision.backoff.rate} (whose values its messages carry) and
 * on nothing else of the library.
 *
 * <ul>
 *   <li>{@link dev.supervision.backoff.spi.GateProtocol}: the messages of a restart budget's gate
 *       (immutable records, safe to send from any thread).
 *   <li>{@link dev.supervision.backoff.spi.ClusterBudgetProvider}: the service, found with {@code
 *       ServiceLoader}, that makes the gate of a cluster-wide budget; the {@code
 *       supervision-backoff-cluster} module implements it.
 * </ul>
 */
package dev.supervision.backoff.spi;
