package dev.supervision.backoff.cluster;

/**
 * Marks the test's messages that cross nodes; bound to Pekko's Jackson CBOR serializer in the test
 * configuration.
 */
interface CborSerializable {}
