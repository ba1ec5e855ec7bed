import BeaconCore
import TestSupport
@testable import BeaconEngine

/// A sighting as a batch carries it: the device, its time (ms) and its RSSI.
typealias Sighting = (DeviceID, Int64, Int)

/// One gateway of a random run: how it batches, and how its clock, its link and its edge behave.
struct StreamGateway: CustomStringConvertible {
    /// What becomes of a gateway during a run.
    enum Fate {
        /// Up throughout.
        case normal
        /// Gone from the time given on, without a Last Will.
        case dies(Int64)
        /// Its Last Will at the first time, back at the second; the edge buffers meanwhile and
        /// replays the buffer, oldest first, when it is back.
        case lastWill(Int64, Int64)
        /// The edge crashes at the first time and restarts at the second with a new epoch;
        /// nothing is buffered.
        case crash(Int64, Int64)

        /// When the gateway sends nothing on time, and whether its edge keeps what it would have sent.
        var down: (from: Int64, to: Int64, buffered: Bool)? {
            switch self {
            case .normal: nil
            case .dies(let at): (at, .max, false)
            case .lastWill(let at, let back): (at, back, true)
            case .crash(let at, let back): (at, back, false)
            }
        }
    }

    let id: String
    /// Its store's index in ``Fixture``'s chain: 0 for Main St (gw-a … gw-c), 1 for Harbour (gw-h).
    let store: Int
    /// Batch window (ms).
    let window: Int64
    /// How far its clock is off (ms): its `sent` and sighting times are this far from the truth.
    let offset: Int64
    /// The chance that one of its batches is lost on the way.
    let loss: Double
    /// Whether its batches are swapped in pairs on the way.
    var swaps = false
    /// Whether its edge seals busy windows early and sends the rest at the window's end.
    var splits = false
    /// What becomes of it; nil where a run does not model failures.
    var fate: Fate?

    var description: String {
        "\(id) w\(window / 1000)s off\(offset / 1000)s loss\(loss)" + (fate.map { " \($0)" } ?? "")
            + (swaps ? " swaps" : "") + (splits ? " splits" : "")
    }
}

/// One device of a random run: its `first` anchor gateway hears it in every window from `enter`,
/// its `second` from `move`, none from `leave` (times are windows' closes).
struct DevicePlan {
    let device: DeviceID
    let enter: Int64
    let move: Int64
    let leave: Int64
    let first: Int
    let second: Int

    /// The gateway that hears the device in every second of a window closing at `close`, if any.
    func anchor(at close: Int64) -> Int? { close < enter || close >= leave ? nil : (close < move ? first : second) }
}

/// A batch on its way to the aggregator: when it was really sent and when it arrives, and what it says.
struct StreamBatch {
    let gateway: Int
    /// When the window closed, in true time.
    let trueTime: Int64
    var arrival: Int64
    /// The batch's `sent`, by the gateway's clock.
    let sent: Int64
    let seq: UInt64
    let epoch: Int64
    let sightings: [Sighting]

    func carries(_ device: DeviceID) -> Bool { sightings.contains { $0.0 == device } }
}

/// What reaches the aggregator from a gateway: a batch, or a status (its Last Will, or its return).
enum StreamEvent {
    case batch(StreamBatch)
    case status(gateway: Int, online: Bool, at: Int64)

    var arrival: Int64 {
        switch self {
        case .batch(let b): b.arrival
        case .status(_, _, let at): at
        }
    }

    var gateway: Int {
        switch self {
        case .batch(let b): b.gateway
        case .status(let g, _, _): g
        }
    }

    var batch: StreamBatch? { if case .batch(let b) = self { b } else { nil } }
}

/// A random run of ``Fixture``'s five gateways for the silence properties: twenty minutes of
/// their batches (and statuses), in the order they reach the aggregator, and the devices they hear.
/// ``steady(seed:)`` and ``failing(seed:brokerOutage:)`` draw one; ``checkSteady()`` and
/// ``checkFailing()`` play it into an engine and check the promises of the silence rules.
struct SilenceRun {
    static let t0: Int64 = 1_790_000_000_000
    static let end = t0 + 20 * 60_000
    static let ids = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]
    static let stores = [0, 0, 0, 0, 1]

    let seed: Int
    let gateways: [StreamGateway]
    let plans: [DevicePlan]
    /// Every batch and status, in the order they arrive.
    var events: [StreamEvent] = []
    /// When the broker is out of reach for the whole chain.
    var outage: Range<Int64>?
    /// When each gateway's edge is connected again after the ``outage``.
    var reconnect: [Int64] = []
    /// When the aggregator restarts from what the retained topics give back.
    var restartAt: Int64?

    /// Every section rule shares the silence rules: each seed runs one of them.
    var rule: Tuning.Rule { Tuning.Rule.allCases[seed % Tuning.Rule.allCases.count] }
    var devices: [DeviceID] { plans.map(\.device) }

    /// What gateway `g` hears in its window [`start`, `close`): each device its anchor, every
    /// second; others of the anchor's store (store 2 has gw-h only) now and then.
    func heard(by g: Int, from start: Int64, to close: Int64, _ random: inout SplitMix64) -> [Sighting] {
        let gateway = gateways[g]
        var sightings: [Sighting] = []
        for plan in plans {
            guard let anchor = plan.anchor(at: close) else { continue }
            if anchor == g {
                sightings += stride(from: Int64(0), to: gateway.window, by: 1000).map { (plan.device, start + gateway.offset + $0 + 500, -60) }
            } else if gateways[anchor].store == gateway.store && random.chance(0.3) {
                sightings += (0..<4).map { (plan.device, start + gateway.offset + gateway.window / 2 + Int64($0) * 250, -60) }
            }
        }
        return sightings
    }

    /// Puts ``events`` in the order they arrive (gateway by gateway at the same instant).
    mutating func sortByArrival() {
        events.sort { ($0.arrival, $0.gateway) < ($1.arrival, $1.gateway) }
    }
}
