public import BeaconCore
import CJSONC

/// One raw advertising report heard by a gateway: who, when, how loud.
public struct Sighting: Sendable, Hashable {
    /// The RSSI and measured-power bounds, in dBm (HCI reports -127…20).
    public static let powerRange: ClosedRange<Int> = -127...20
    /// The longest `addr` accepted, in bytes (a colon-separated MAC is 17).
    public static let maxAddressLength = 32

    /// The device heard (`"dev"`).
    public var device: DeviceID
    /// When it was heard, Unix milliseconds from the gateway's clock (`"t"`).
    public var time: Int64
    /// Received signal strength in dBm, -127…20 (`"rssi"`).
    public var rssi: Int
    /// The advert's measured power at 1 m in dBm, when it carries one (`"tx"`).
    public var txPower: Int?
    /// The advertiser's Bluetooth address as reported, for diagnostics (`"addr"`, ≤ 32 bytes).
    public var address: String?

    /// Creates a sighting; the decoder enforces the bounds documented on each property.
    public init(device: DeviceID, time: Int64, rssi: Int, txPower: Int? = nil, address: String? = nil) {
        self.device = device
        self.time = time
        self.rssi = rssi
        self.txPower = txPower
        self.address = address
    }
}

/// Everything one gateway heard in one batching window (edge → aggregator), published at
/// `<root>/sightings/<store>/<gw>`. `sequence` increases by one per batch so that the aggregator
/// can count lost batches per gateway.
public struct SightingBatch: WirePayload, Hashable {
    /// The gateway that heard the sightings (`"gw"`); must match the topic.
    public var gateway: GatewayID
    /// The batch's sequence number per gateway, 0 … 2⁵³−1 (`"seq"`).
    public var sequence: UInt64
    /// When the batch was sent, Unix milliseconds (`"sent"`).
    public var sent: Int64
    /// One entry per raw advertising report, in the order heard (`"sightings"`).
    public var sightings: [Sighting]
    /// Names the edge run whose count `sequence` belongs to: the Unix milliseconds at which that
    /// beacon-edge process started (`"epoch"`, optional). A new value tells the aggregator the
    /// sequence started again, so a restarted edge's first batches are never taken for repeats.
    public var epoch: Int64?

    /// Creates a batch.
    public init(gateway: GatewayID, sequence: UInt64, sent: Int64, sightings: [Sighting], epoch: Int64? = nil) {
        self.gateway = gateway
        self.sequence = sequence
        self.sent = sent
        self.sightings = sightings
        self.epoch = epoch
    }
}

extension SightingBatch {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("gw", gateway.rawValue)
        root.set("seq", sequence)
        root.set("sent", sent)
        root.setIfPresent("epoch", epoch)
        let list = JSONNode.array(capacity: sightings.count)
        for sighting in sightings {
            let item = JSONNode.object()
            item.set("dev", sighting.device.rawValue)
            item.set("t", sighting.time)
            item.set("rssi", sighting.rssi)
            if let tx = sighting.txPower { item.set("tx", tx) }
            item.setIfPresent("addr", sighting.address)
            list.append(item)
        }
        root.set("sightings", list)
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> SightingBatch {
        try decoder.withSightingBatch(bytes) { header, list in
            SightingBatch(gateway: header.gateway, sequence: header.sequence, sent: header.sent,
                          sightings: list.map(Sighting.init), epoch: header.epoch)
        }
    }
}

/// A batch's fields other than its sightings.
public struct SightingBatchHeader: Sendable, Hashable {
    /// The gateway that heard the sightings (`"gw"`).
    public var gateway: GatewayID
    /// The batch's sequence number per gateway (`"seq"`).
    public var sequence: UInt64
    /// When the batch was sent, Unix milliseconds (`"sent"`).
    public var sent: Int64
    /// The edge run the sequence belongs to (`"epoch"`), when the edge sends it.
    public var epoch: Int64?
}

/// One sighting as decoded, validated exactly as ``Sighting`` is, with its text fields borrowed
/// from the parsed document instead of copied into strings: valid only inside the
/// ``WireDecoder/withSightingBatch(_:_:)`` call that hands it out.
public struct BorrowedSighting {
    /// The device id's UTF-8 bytes (they passed ``DeviceID/validate(utf8:)``).
    public let device: UnsafeBufferPointer<UInt8>
    /// When it was heard, Unix milliseconds (`"t"`).
    public let time: Int64
    /// Received signal strength, dBm (`"rssi"`).
    public let rssi: Int
    /// The advert's measured power at 1 m, dBm (`"tx"`), when present.
    public let txPower: Int?
    /// The advertiser's address as reported (`"addr"`, ≤ 32 bytes), when present.
    public let address: UnsafeBufferPointer<UInt8>?
}

extension Sighting {
    /// Copies a borrowed sighting into one that owns its strings.
    public init(_ borrowed: BorrowedSighting) {
        self.init(device: DeviceID(validatedUTF8: borrowed.device), time: borrowed.time, rssi: borrowed.rssi,
                  txPower: borrowed.txPower, address: borrowed.address.map { String(decoding: $0, as: UTF8.self) })
    }
}

extension WireDecoder {
    /// Decodes a ``SightingBatch`` payload and hands `body` its header and sightings without
    /// building a string per sighting: the aggregator's hot path. The sightings' bytes live in the
    /// parser's document and are valid only during `body`. Throws what decoding a
    /// ``SightingBatch`` throws, before `body` runs: a batch is decoded whole or not at all.
    public func withSightingBatch<Result>(
        _ bytes: UnsafeRawBufferPointer, _ body: (SightingBatchHeader, UnsafeBufferPointer<BorrowedSighting>) -> Result
    ) throws(WireError) -> Result {
        try readCounting(bytes) { root, declared throws(WireError) in
            let header = SightingBatchHeader(
                gateway: try root.gatewayID("gw"), sequence: try root.count("seq"), sent: try root.time("sent"),
                epoch: try root.optionalTime("epoch"))
            let list = try root.array("sightings", limit: root.limits.maxSightings)
            return try withUnsafeTemporaryAllocation(of: BorrowedSighting.self, capacity: list.count) { buffer throws(WireError) in
                // The members of the objects read: the root's and every sighting's (each walked whole).
                var members = Int(bn_json_object_length(root.object))
                for index in 0..<list.count {
                    (buffer.baseAddress! + index).initialize(to: try BorrowedSighting(reading: list.object(at: index), counting: &members))
                }
                try declared.check(kept: members)
                return body(header, UnsafeBufferPointer(buffer))
            }
        }
    }

    /// ``withSightingBatch(_:_:)`` over any byte collection (read in place when contiguous).
    public func withSightingBatch<Result>(
        _ bytes: some Collection<UInt8>, _ body: (SightingBatchHeader, UnsafeBufferPointer<BorrowedSighting>) -> Result
    ) throws(WireError) -> Result {
        try withRawBytes(bytes) { buffer throws(WireError) in try withSightingBatch(buffer, body) }
    }
}

extension BorrowedSighting {
    private static let power = Int64(Sighting.powerRange.lowerBound)...Int64(Sighting.powerRange.upperBound)

    /// Reads one sighting in a single pass over its members: this runs once per advertising
    /// report, and one walk is cheaper than five hashed key lookups. Adds its members to `members`.
    @inline(__always)
    init(reading item: ObjectReader, counting members: inout Int) throws(WireError) {
        var device: UnsafeBufferPointer<UInt8>?
        var time: Int64?
        var rssi: Int64?
        var txPower: Int64?
        var address: UnsafeBufferPointer<UInt8>?
        var entry = bn_json_object_first(item.object)
        while let member = entry {
            let key = bn_json_entry_key(member)!
            let value = bn_json_entry_value(member)
            switch UInt8(bitPattern: key[0]) {
            case UInt8(ascii: "d") where key.matches("dev"):
                device = try item.deviceBytes(item.present(value, "dev", .string), "dev")
            case UInt8(ascii: "t") where key.matches("t"):
                time = try item.integer(item.present(value, "t", .integer), "t", in: item.timeBounds, unit: ObjectReader.timeUnit)
            case UInt8(ascii: "t") where key.matches("tx"):
                if let value { txPower = try item.integer(value, "tx", in: Self.power, unit: "dBm") }
            case UInt8(ascii: "r") where key.matches("rssi"):
                rssi = try item.integer(item.present(value, "rssi", .integer), "rssi", in: Self.power, unit: "dBm")
            case UInt8(ascii: "a") where key.matches("addr"):
                if let value { address = try item.bytes(value, "addr", maxLength: Sighting.maxAddressLength) }
            default:
                break  // a field from a newer edge
            }
            members += 1
            entry = bn_json_entry_next(member)
        }
        guard let device else { throw WireError(field: item.path.appending("dev"), reason: .missing) }
        guard let time else { throw WireError(field: item.path.appending("t"), reason: .missing) }
        guard let rssi else { throw WireError(field: item.path.appending("rssi"), reason: .missing) }
        self.init(device: device, time: time, rssi: Int(rssi), txPower: txPower.map { Int($0) }, address: address)
    }
}
