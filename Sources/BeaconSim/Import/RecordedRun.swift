public import BeaconCore

/// One run of a real dataset, as read: what each receiver heard, when, and where the device truly
/// was, in the run's own time. ``RecordingLayout`` turns runs into edge batches and a truth file.
public struct RecordedRun: Sendable {
    /// A short name, used for its output folder (`calib1`, `car_sensor_1_measurement_1`).
    public var name: String
    /// The dataset file it was read from.
    public var source: String
    /// The one device the run follows.
    public var device: DeviceID
    /// Its first and last row's times, Unix ms.
    public var span: ClosedRange<Int64>
    /// Rows read from the file.
    public var rows: Int
    /// Readings in time order.
    public var readings: [RecordedReading]
    /// The device's true places, in time order, the first at the run's start; empty for a run
    /// without a timed truth, which is unscored throughout.
    public var truth: [TruthChange]

    /// A run.
    public init(name: String, source: String, device: DeviceID, span: ClosedRange<Int64>, rows: Int,
                readings: [RecordedReading], truth: [TruthChange]) {
        self.name = name
        self.source = source
        self.device = device
        self.span = span
        self.rows = rows
        self.readings = readings
        self.truth = truth
    }
}
