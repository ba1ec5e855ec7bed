public import BeaconCore
public import BeaconEngine

/// A small chain: store 1 has sections 10–20–30 in a row (10 and 30 are not adjacent), one gateway
/// each plus a second in 20; store 2 has one section with one gateway.
public enum Fixture {
    public static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    public static func config(_ tune: (inout Tuning) -> Void = { _ in }) -> ChainConfig {
        var tuning = Tuning()
        tune(&tuning)
        return ChainConfig(
            siteUUID: uuid,
            stores: [
                .init(major: 1, name: "Main St", sections: [
                    .init(minor: 10, name: "Entrance", adjacent: [20]),
                    .init(minor: 20, name: "Grocery", adjacent: [10, 30]),
                    .init(minor: 30, name: "Electronics", adjacent: [20]),
                ]),
                .init(major: 2, name: "Harbour", sections: [.init(minor: 1, name: "Hall")]),
            ],
            gateways: [
                .init(id: "gw-a", store: 1, section: 10),
                .init(id: "gw-b", store: 1, section: 20),
                .init(id: "gw-b2", store: 1, section: 20),
                .init(id: "gw-c", store: 1, section: 30),
                .init(id: "gw-h", store: 2, section: 1),
            ],
            tuning: tuning)
    }

    public static func engine(_ tune: (inout Tuning) -> Void = { _ in }) throws -> AggregationEngine {
        AggregationEngine(chain: try config(tune).resolve())
    }

    public static let phone = try! DeviceID("ib-\(uuid)-7-7")
    public static let tag = try! DeviceID("mac-AA:BB:CC:DD:EE:01")
}

/// Drives an engine the way edges do: one batch per gateway per second, sequence numbers per gateway.
public struct Driver {
    public var engine: AggregationEngine
    public var seq: [String: UInt64] = [:]
    public var outputs: [EngineOutput] = []
    /// The measured power (dBm at 1 m) every advert heard carries.
    public var measuredPower = -59

    public init(_ engine: AggregationEngine) { self.engine = engine }

    /// One batch from `gw` sent at `sent` (ms) with the given sightings.
    @discardableResult
    public mutating func batch(_ gw: String, sent: Int64, _ sightings: [(DeviceID, Int64, Int)], seq explicit: UInt64? = nil, epoch: Int64? = nil,
                        arrival: Int64? = nil)
        -> AggregationEngine.BatchOutcome
    {
        let s = explicit ?? (seq[gw].map { $0 + 1 } ?? 0)
        seq[gw] = max(seq[gw] ?? 0, s)
        let observations = sightings.map { Observation(device: $0.0, time: $0.1, rssi: $0.2, measuredPower: measuredPower) }
        return engine.ingest(gateway: try! GatewayID(gw), seq: s, sent: sent, epoch: epoch, arrival: arrival, observations: observations, into: &outputs)
    }

    /// Every gateway in `levels` hears `device` at the given RSSI four times a second over
    /// [`from`, `to`) ms; every gateway in `heartbeat` sends its batches, heard or not.
    public mutating func hear(
        _ device: DeviceID, _ levels: [String: Int], from: Int64, to: Int64,
        heartbeat: [String] = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]
    ) {
        var second = from
        while second < to {
            for gw in heartbeat {
                var sightings: [(DeviceID, Int64, Int)] = []
                if let level = levels[gw] {
                    for k in 0..<4 { sightings.append((device, second + Int64(k) * 250, level)) }
                }
                batch(gw, sent: second + 1000, sightings)
            }
            second += 1000
        }
    }

    /// Walks `device` along `path` (a position per second from `start`, ms), four adverts a
    /// second: each of `gateways` reports what `level` says it hears at a position (nil:
    /// nothing), asked in gateway order, four times a position. Returns the time after the walk.
    @discardableResult
    public mutating func walk(
        _ device: DeviceID, from start: Int64, _ path: [(x: Double, y: Double)], gateways: [String],
        level: (_ gateway: Int, _ x: Double, _ y: Double) -> Int?
    ) -> Int64 {
        var t = start
        for p in path {
            for (g, id) in gateways.enumerated() {
                var sightings: [(DeviceID, Int64, Int)] = []
                for k in 0..<4 {
                    if let rssi = level(g, p.x, p.y) { sightings.append((device, t + Int64(k) * 250, rssi)) }
                }
                batch(id, sent: t + 1000, sightings)
            }
            t += 1000
        }
        return t
    }

    /// Only heartbeats (empty batches) from `gateways` over [`from`, `to`).
    public mutating func silence(from: Int64, to: Int64, gateways: [String] = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]) {
        var second = from
        while second < to {
            for gw in gateways { batch(gw, sent: second + 1000, []) }
            second += 1000
        }
    }

    /// Transitions so far, as short strings: `enter 1`, `exit 1/20`, `enter 1/30 from 20`.
    public var transitions: [String] {
        outputs.compactMap {
            guard case .transition(let t) = $0 else { return nil }
            let chain = engine.chain
            var text = "\(t.kind.rawValue) \(chain.stores[t.store].major)"
            if let s = t.section { text += "/\(chain.sections[s].minor)" }
            if t.kind == .enter, t.section != nil, let o = t.otherSection { text += " from \(chain.sections[o].minor)" }
            return text
        }
    }

    public var transitionEvents: [Transition] {
        outputs.compactMap { if case .transition(let t) = $0 { return t } else { return nil } }
    }

    public var states: [DeviceSnapshot] {
        outputs.compactMap { if case .state(let s) = $0 { return s } else { return nil } }
    }

    public mutating func clear() { outputs.removeAll() }
}
