/**
 * The thundering-herd demo: thousands of cells depend on one simulated resource, the resource goes
 * down for a while, every cell fails, and each restart strategy is measured on how hard it hits the
 * resource as it comes back. Run it with {@link dev.supervision.herd.HerdCommand}; not published.
 */
package dev.supervision.herd;
