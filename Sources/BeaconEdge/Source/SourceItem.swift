/// One HCI event as a source delivers it: the bytes from Event_Code on (no H4 packet-type byte)
/// and when it was received, in microseconds since the Unix epoch — the gateway's clock for a
/// live adapter, the recorded timestamp for a replay.
public struct HCIPacket: Sendable {
    /// The event, starting at its Event_Code. For a replay, a slice of the capture (no copy).
    public var event: ArraySlice<UInt8>
    /// When it was received, µs since 1970-01-01 UTC.
    public var time: Int64

    /// Makes a packet.
    public init(event: ArraySlice<UInt8>, time: Int64) {
        self.event = event
        self.time = time
    }
}

/// What a source hands the pipeline. Live and replayed sources produce the same items, so both go
/// through exactly the same decode → filter → batch → publish path.
public enum SourceItem: Sendable {
    /// An HCI event.
    case packet(HCIPacket)
    /// The source's clock has reached this time (µs since the epoch) with nothing more to say: the
    /// pipeline closes the windows that ended before it, so an empty window still yields its
    /// heartbeat batch on time.
    case clock(Int64)
}
