/// A batch ready to publish: its sequence number, how many sightings it carries, and its encoded
/// ``BeaconWire/SightingBatch`` payload. Encoded once, when the window closes, so the outage
/// buffer and its spill file hold exactly the bytes that will go on the wire.
public struct SealedBatch: Sendable, Equatable {
    /// The batch's `seq`.
    public var sequence: UInt64
    /// Sightings in it (0 for a heartbeat).
    public var sightings: Int
    /// The JSON payload.
    public var payload: [UInt8]

    /// Makes a sealed batch.
    public init(sequence: UInt64, sightings: Int, payload: [UInt8]) {
        self.sequence = sequence
        self.sightings = sightings
        self.payload = payload
    }
}
