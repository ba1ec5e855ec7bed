/// One reading of a real recording: a receiver heard the device at a time, this loud.
public struct RecordedReading: Sendable, Equatable {
    /// The receiver: an index into the dataset's chain `gateways` (and the resolved chain's).
    public var gateway: Int
    /// When, Unix ms, in the run's own time.
    public var time: Int64
    /// Received signal strength, dBm (rounded where the dataset has fractions).
    public var rssi: Int

    /// A reading.
    public init(gateway: Int, time: Int64, rssi: Int) {
        self.gateway = gateway
        self.time = time
        self.rssi = rssi
    }
}
