public import BeaconCore
import BeaconWire

/// Groups sightings into windows of event time and seals one ``SightingBatch`` per window, empty
/// or not (an empty batch is the heartbeat the aggregator watches to tell a quiet gateway from a
/// dead one). Pure: time comes only from the items fed in, so a replay batches the same way every
/// time, at any speed.
///
/// Windows are aligned to multiples of the window length since the epoch. A window that would
/// exceed ``maxSightings`` is sealed early and the rest goes into a second batch of the same
/// window, so no payload breaks the wire's limits. A clock jump of more than ``maxCatchUp``
/// windows (a gap in a capture, a clock set forward) yields one heartbeat, not thousands.
public struct Batcher: Sendable {
    /// The most sightings in one batch: well inside the wire's 4 000 sightings and 512 KiB.
    public static let maxSightings = 3000
    /// The most empty windows sealed at once when time jumps.
    public static let maxCatchUp: Int64 = 10

    /// The window length in µs.
    public let window: Int64
    /// The gateway the batches are from.
    public let gateway: GatewayID
    /// Whether sightings carry the advertiser's address.
    public let includeAddress: Bool
    /// The next batch's sequence number.
    public private(set) var nextSequence: UInt64
    /// This run's `epoch` on every batch (Unix ms when the process started), or nil to send none.
    public let epoch: Int64?
    /// Start of the open window (µs), nil before the first item.
    public private(set) var windowStart: Int64?
    /// The latest time seen (µs).
    private var latest: Int64 = 0
    private var sightings: [Sighting] = []
    /// Device id text per key, built once per device per batch (building it is the costly part).
    private var ids: [DeviceKey: DeviceID] = [:]

    /// Makes a batcher that starts counting at `firstSequence` and names its run `epoch`.
    public init(gateway: GatewayID, windowMilliseconds: Int, firstSequence: UInt64 = 0, epoch: Int64? = nil, includeAddress: Bool = false) {
        self.gateway = gateway
        self.epoch = epoch
        self.window = Int64(windowMilliseconds) * 1000
        self.nextSequence = firstSequence
        self.includeAddress = includeAddress
    }

    /// Sightings in the open window.
    public var pending: Int { sightings.count }

    /// Adds one sighting heard at `time` (µs), sealing the windows that ended before it first.
    public mutating func add(
        _ key: DeviceKey, time: Int64, rssi: Int8, txPower: Int8?, address: BluetoothAddress,
        sealed emit: (SealedBatch) -> Void
    ) {
        advance(to: time, sealed: emit)
        let device: DeviceID
        if let known = ids[key] {
            device = known
        } else {
            device = key.deviceID
            ids[key] = device
        }
        let milliseconds = time >= 0 ? time / 1000 : (time - 999) / 1000
        sightings.append(
            Sighting(
                device: device, time: milliseconds, rssi: Int(rssi), txPower: txPower.map(Int.init),
                address: includeAddress ? address.description : nil))
        if sightings.count >= Self.maxSightings { seal(sent: latest, emit) }
    }

    /// Moves the clock to `time` (µs), sealing every window that ended at or before it.
    public mutating func advance(to time: Int64, sealed emit: (SealedBatch) -> Void) {
        guard let start = windowStart else {
            windowStart = Self.floor(time, window)
            latest = time
            return
        }
        latest = Swift.max(latest, time)
        guard time >= start + window else { return }  // still inside (or before: a clock step back)
        seal(sent: start + window, emit)
        var next = start + window
        var empty: Int64 = 0
        while time >= next + window {
            if empty == Self.maxCatchUp {
                next = Self.floor(time, window)
                break
            }
            seal(sent: next + window, emit)
            next += window
            empty += 1
        }
        windowStart = next
    }

    /// Seals the open window as it is (at shutdown or the end of a replay), even when empty.
    public mutating func finish(sealed emit: (SealedBatch) -> Void) {
        guard windowStart != nil else { return }
        seal(sent: latest, emit)
        windowStart = nil
    }

    private mutating func seal(sent: Int64, _ emit: (SealedBatch) -> Void) {
        let batch = SightingBatch(
            gateway: gateway, sequence: nextSequence, sent: sent >= 0 ? sent / 1000 : (sent - 999) / 1000,
            sightings: sightings, epoch: epoch)
        emit(SealedBatch(sequence: nextSequence, sightings: sightings.count, payload: batch.encoded()))
        nextSequence += 1
        sightings.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    static func floor(_ time: Int64, _ window: Int64) -> Int64 {
        let q = time / window
        return (time % window < 0 ? q - 1 : q) * window
    }
}
