/**
 * The extension point: what another module plugs into the core ({@link
 * dev.supervision.backoff.spi.ClusterBudgetProvider}) or speaks to it ({@link
 * dev.supervision.backoff.spi.GateProtocol}). It stands on the decision classes of {@link
 * dev.supervision.backoff.rate} (whose values its messages carry) and on nothing else of the
 * library.
 */
package dev.supervision.backoff.spi;
