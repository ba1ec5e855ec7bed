import BeaconCore
import BeaconWire

/// Realistic sighting batches, the same on every run (fixed seed): a store's worth of devices
/// (mostly phones advertising as iBeacons with ~48-byte ids, some Eddystone and AltBeacon tags,
/// a few plain MAC addresses), mixed RSSI, measured power on most adverts, an address on some.
struct BatchCorpus {
    /// The encoded batches, each about 5 KB.
    let payloads: [[UInt8]]
    /// Sightings per batch.
    let sightingsPerBatch: Int

    init(batches: Int, sightingsPerBatch: Int = 50) {
        var random = SplitMix64(seed: 0xBEAC_0415)
        let devices = (0..<400).map { _ in Self.device(&random) }
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(batches)
        var clock: Int64 = 1_732_350_000_000
        for index in 0..<batches {
            let gateway = try! GatewayID("gw-\(12 + index % 9)-\(index % 4)")
            var sightings: [Sighting] = []
            sightings.reserveCapacity(sightingsPerBatch)
            for slot in 0..<sightingsPerBatch {
                let device = devices[Int(random.next() % UInt64(devices.count))]
                let rssi = -100 + Int(random.next() % 62)
                let tx: Int? = device.hasPrefix("mac-") ? nil : [-59, -62, -65, -70, -77][Int(random.next() % 5)]
                let address: String? = random.next() % 5 == 0 ? Self.mac(&random) : nil
                sightings.append(Sighting(
                    device: try! DeviceID(device), time: clock - 1000 + Int64(slot * 19), rssi: rssi,
                    txPower: tx, address: address))
            }
            let batch = SightingBatch(gateway: gateway, sequence: UInt64(index), sent: clock, sightings: sightings)
            payloads.append(batch.encoded())
            clock += 1000
        }
        self.payloads = payloads
        self.sightingsPerBatch = sightingsPerBatch
    }

    /// The mean payload size in bytes.
    var averageSize: Double {
        Double(payloads.reduce(0) { $0 + $1.count }) / Double(max(payloads.count, 1))
    }

    private static func device(_ random: inout SplitMix64) -> String {
        switch random.next() % 20 {
        case 0..<14:  // the chain's app on a phone: ib-<UUID>-<major>-<minor>
            let uuid = [8, 4, 4, 4, 12].map { hex(&random, digits: $0, uppercase: true) }.joined(separator: "-")
            return "ib-\(uuid)-\(random.next() % 65536)-\(random.next() % 65536)"
        case 14..<17:  // Eddystone-UID tag: 10-byte namespace, 6-byte instance
            return "eu-\(hex(&random, digits: 20, uppercase: false))-\(hex(&random, digits: 12, uppercase: false))"
        case 17..<18:  // AltBeacon
            return "ab-\(hex(&random, digits: 32, uppercase: false))-\(random.next() % 65536)-\(random.next() % 65536)"
        default:
            return "mac-" + mac(&random)
        }
    }

    private static func mac(_ random: inout SplitMix64) -> String {
        (0..<6).map { _ in hex(&random, digits: 2, uppercase: true) }.joined(separator: ":")
    }

    private static func hex(_ random: inout SplitMix64, digits: Int, uppercase: Bool) -> String {
        let alphabet = Array(uppercase ? "0123456789ABCDEF" : "0123456789abcdef")
        return String((0..<digits).map { _ in alphabet[Int(random.next() % 16)] })
    }
}

/// A tiny deterministic generator, so every run measures the same bytes.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
