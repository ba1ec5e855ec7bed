import BeaconCore
import BeaconWire
import PropertyBased

/// Random valid values for property tests. Strings deliberately include quotes, backslashes,
/// control characters (where the field allows them: not in names) and non-ASCII text, which the
/// encoder must escape and the decoder restore.
enum Random {
    /// Printable ASCII but `/`, `+` and `#`: an advert's address text.
    static let addressAlphabet: [UInt8] = (0x21...0x7E).filter { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "#") }
    /// What follows the kind of a device id of another kind than the edge's four.
    static let deviceAlphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")
    static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-")
    static let namePieces = ["a", "Z", "9", " ", "\"", "\\", "/", "é", "€", "…", "😀", "東京", "Lyon", "Part-Dieu"]
    static let textPieces = namePieces + ["\n", "\t", "\u{0}", "\u{1F}"]

    static func int<R: RandomNumberGenerator>(_ range: ClosedRange<Int>, _ rng: inout R) -> Int { Int.random(in: range, using: &rng) }
    static func chance<R: RandomNumberGenerator>(_ rng: inout R, _ percent: Int = 50) -> Bool { int(1...100, &rng) <= percent }

    /// A device id of each kind DeviceID knows, in the shape the edge writes, or of another kind.
    static func device<R: RandomNumberGenerator>(_ rng: inout R) -> DeviceID {
        func hex(_ count: Int, _ digits: String) -> String { String((0..<count).map { _ in Array(digits)[int(0...15, &rng)] }) }
        let upper = "0123456789ABCDEF", lower = "0123456789abcdef"
        switch int(0...9, &rng) {
        case 0...6:
            let uuid = [8, 4, 4, 4, 12].map { hex($0, upper) }.joined(separator: "-")
            return try! DeviceID("\(chance(&rng, 80) ? "ib" : "ab")-\(uuid)-\(int(0...65535, &rng))-\(int(0...65535, &rng))")
        case 7:
            return try! DeviceID("eu-\(hex(20, lower))-\(hex(12, lower))")
        case 8:
            return try! DeviceID("mac-" + (0..<6).map { _ in hex(2, upper) }.joined(separator: ":"))
        default:
            let rest = (0..<int(1...DeviceID.maxLength - 4, &rng)).map { _ in deviceAlphabet[int(0...deviceAlphabet.count - 1, &rng)] }
            return try! DeviceID("rec-" + String(rest))
        }
    }

    static func gateway<R: RandomNumberGenerator>(_ rng: inout R) -> GatewayID {
        try! GatewayID("gw-" + String((0..<int(1...20, &rng)).map { _ in idAlphabet[int(0...idAlphabet.count - 1, &rng)] }))
    }

    static func aggregator<R: RandomNumberGenerator>(_ rng: inout R) -> AggregatorID {
        try! AggregatorID(String((0..<int(1...30, &rng)).map { _ in idAlphabet[int(0...idAlphabet.count - 1, &rng)] }))
    }

    static func text<R: RandomNumberGenerator>(_ rng: inout R, maxPieces: Int = 12) -> String {
        (0..<int(0...maxPieces, &rng)).map { _ in textPieces[int(0...textPieces.count - 1, &rng)] }.joined()
    }

    /// A store's or section's name: no controls (every reader refuses them), at most 12 pieces,
    /// well within the 128 bytes.
    static func name<R: RandomNumberGenerator>(_ rng: inout R) -> String {
        (0..<int(0...12, &rng)).map { _ in namePieces[int(0...namePieces.count - 1, &rng)] }.joined()
    }

    static func time<R: RandomNumberGenerator>(_ rng: inout R) -> Int64 {
        Int64.random(in: WireLimits.earliestTime...WireLimits.latestTime, using: &rng)
    }

    static func count<R: RandomNumberGenerator>(_ rng: inout R) -> UInt64 {
        chance(&rng, 10) ? (1 << 53) - 1 : UInt64.random(in: 0...1_000_000_000, using: &rng)
    }

    /// Any double, including the awkward ones the setters must tame (NaN, ±∞, negative, huge).
    static func double<R: RandomNumberGenerator>(_ rng: inout R, _ range: ClosedRange<Double>) -> Double {
        switch int(0...20, &rng) {
        case 0: .nan
        case 1: .infinity
        case 2: -.infinity
        case 3: -1
        default: Double.random(in: range, using: &rng)
        }
    }

    static func region<R: RandomNumberGenerator>(_ rng: inout R) -> RegionScope {
        let store = UInt16.random(in: 0...UInt16.max, using: &rng)
        return chance(&rng) ? .store(store) : .section(SectionRef(store: store, section: UInt16.random(in: 0...UInt16.max, using: &rng)))
    }

    static func uuid<R: RandomNumberGenerator>(_ rng: inout R) -> String {
        let hex = Array(chance(&rng) ? "0123456789ABCDEF" : "0123456789abcdef")
        return [8, 4, 4, 4, 12].map { n in String((0..<n).map { _ in hex[int(0...15, &rng)] }) }.joined(separator: "-")
    }

    static func sighting<R: RandomNumberGenerator>(_ rng: inout R) -> Sighting {
        Sighting(
            device: device(&rng), time: time(&rng), rssi: int(-127...20, &rng),
            txPower: chance(&rng, 80) ? int(-127...20, &rng) : nil,
            address: chance(&rng, 20) ? String((0..<int(0...32, &rng)).map { _ in Character(UnicodeScalar(addressAlphabet[int(0...addressAlphabet.count - 1, &rng)])) }) : nil)
    }

    static func batch<R: RandomNumberGenerator>(_ rng: inout R) -> SightingBatch {
        SightingBatch(
            gateway: gateway(&rng), sequence: count(&rng), sent: time(&rng),
            sightings: (0..<int(0...60, &rng)).map { _ in sighting(&rng) })
    }

    static func event<R: RandomNumberGenerator>(_ rng: inout R) -> RegionEvent {
        let kind: RegionTransition = chance(&rng) ? .enter : .exit
        return RegionEvent(
            kind: kind, region: region(&rng), device: device(&rng), uuid: uuid(&rng), storeName: name(&rng),
            sectionName: chance(&rng) ? name(&rng) : nil, time: time(&rng),
            fromSection: chance(&rng) ? UInt16.random(in: 0...UInt16.max, using: &rng) : nil,
            dwellMilliseconds: chance(&rng) ? Int64.random(in: 0...(1 << 53) - 1, using: &rng) : nil,
            proximity: Proximity.allCases[int(0...3, &rng)],
            accuracy: chance(&rng, 80) ? double(&rng, 0...1500) : nil, confidence: double(&rng, -0.5...1.5),
            sequence: count(&rng))
    }

    static func state<R: RandomNumberGenerator>(_ rng: inout R) -> DeviceState {
        DeviceState(
            device: device(&rng), presence: DeviceState.Presence.allCases[int(0...2, &rng)], uuid: uuid(&rng),
            region: chance(&rng, 70) ? region(&rng) : nil, storeName: chance(&rng) ? name(&rng) : nil,
            sectionName: chance(&rng) ? name(&rng) : nil, since: time(&rng), lastSeen: time(&rng),
            proximity: Proximity.allCases[int(0...3, &rng)], accuracy: chance(&rng, 80) ? double(&rng, 0...1500) : nil,
            confidence: double(&rng, -0.5...1.5), sequence: count(&rng))
    }
}

extension Gen where Value == SightingBatch {
    /// Random valid sighting batches (0–60 sightings).
    static var sightingBatch: Generator<SightingBatch, Shrink.None<SightingBatch>> { Generator { rng in Random.batch(&rng) } }
}

extension Gen where Value == RegionEvent {
    /// Random valid region events.
    static var regionEvent: Generator<RegionEvent, Shrink.None<RegionEvent>> { Generator { rng in Random.event(&rng) } }
}

extension Gen where Value == DeviceState {
    /// Random valid device states.
    static var deviceState: Generator<DeviceState, Shrink.None<DeviceState>> { Generator { rng in Random.state(&rng) } }
}
