// Frame recognition. Each decoder checks every byte it reads against the structure's length and
// every magic value, and answers nil for anything else — look-alikes (Apple adverts of other types,
// AltBeacon layouts with another beacon code) and short frames are simply not beacons.
//
// Length policy, matched against the vectors in the tests: a frame needs at least its full fixed
// layout; trailing bytes after it are tolerated (Jaalee JHT tags append one byte to their iBeacon),
// missing bytes are not (the Android Beacon Library's lenient 25-byte AltBeacon is rejected, as the
// AltBeacon spec's 26 bytes of manufacturer data are not all there).

extension BeaconFrame {
    /// Apple's company id.
    static let appleCompanyID: UInt16 = 0x004C
    /// The Eddystone service UUID.
    static let eddystoneServiceUUID: UInt16 = 0xFEAA

    /// Recognises the beacon frame in one AD structure; nil when it holds none.
    public init?(_ structure: ADStructure) {
        let value = structure.value
        guard let frame = Self.decode(type: structure.type.rawValue, value, from: value.startIndex, to: value.endIndex)
        else { return nil }
        self = frame
    }

    /// The frame in the AD structure of type `type` whose value is `bytes[start..<end]`. Decoders
    /// read by index into the caller's slice rather than slicing it: no reference counting per
    /// structure on the hot path.
    @inline(__always)
    static func decode(type: UInt8, _ bytes: ArraySlice<UInt8>, from start: Int, to end: Int) -> BeaconFrame? {
        switch type {
        case ADType.manufacturerSpecificData.rawValue: return manufacturerFrame(bytes, from: start, to: end)
        case ADType.serviceData16.rawValue: return eddystoneFrame(bytes, from: start, to: end)
        default: return nil
        }
    }

    /// iBeacon: `4C 00 02 15` uuid(16) major(2 BE) minor(2 BE) power(1) — 25 bytes.
    /// AltBeacon: mfg(2 LE) `BE AC` id1(16) id2(2 BE) id3(2 BE) refRSSI(1) reserved(1) — 26 bytes.
    private static func manufacturerFrame(_ v: ArraySlice<UInt8>, from s: Int, to e: Int) -> BeaconFrame? {
        let count = e - s
        guard count >= 25 else { return nil }
        if v[s] == 0x4C && v[s + 1] == 0x00 && v[s + 2] == 0x02 && v[s + 3] == 0x15 {
            return .iBeacon(
                IBeaconFrame(
                    uuid: UUID128(bigEndianAt: s + 4, in: v), major: v.uint16BE(at: s + 20),
                    minor: v.uint16BE(at: s + 22), measuredPower: v.int8(at: s + 24)))
        }
        if count >= 26 && v[s + 2] == 0xBE && v[s + 3] == 0xAC {
            return .altBeacon(
                AltBeaconFrame(
                    manufacturerID: v.uint16LE(at: s), id1: UUID128(bigEndianAt: s + 4, in: v),
                    id2: v.uint16BE(at: s + 20), id3: v.uint16BE(at: s + 22), referenceRSSI: v.int8(at: s + 24),
                    manufacturerReserved: v[s + 25]))
        }
        return nil
    }

    /// Eddystone: service UUID `AA FE`, then the frame type and the frame's fields
    /// (github.com/google/eddystone, protocol-specification.md and the per-frame documents).
    private static func eddystoneFrame(_ v: ArraySlice<UInt8>, from s: Int, to e: Int) -> BeaconFrame? {
        guard e - s >= 3, v[s] == 0xAA, v[s + 1] == 0xFE else { return nil }
        let f = s + 2  // frame type
        let frameLength = e - f
        switch v[f] {
        case 0x00:
            // type, tx, namespace(10), instance(6), then 2 RFU bytes many beacons leave out.
            guard frameLength >= 18, frameLength <= 20 else { return nil }
            return .eddystoneUID(
                EddystoneUIDFrame(
                    txPowerAt0m: v.int8(at: f + 1), namespace: EddystoneNamespace(at: f + 2, in: v),
                    instance: EddystoneInstance(at: f + 12, in: v)))
        case 0x10:
            // type, tx, scheme, 0–17 bytes of encoded URL.
            guard frameLength >= 3, frameLength <= 3 + EddystoneURLFrame.maxEncodedLength, v[f + 2] <= 3,
                EddystoneURLCoding.isValid(v, from: f + 3, to: e)
            else { return nil }
            return .eddystoneURL(
                EddystoneURLFrame(txPowerAt0m: v.int8(at: f + 1), scheme: v[f + 2], bytes: v, from: f + 3, to: e))
        case 0x20 where frameLength >= 2 && v[f + 1] == 0x00:
            // type, version 0, VBATT(2), TEMP(2), ADV_CNT(4), SEC_CNT(4): exactly 14 bytes.
            guard frameLength == 14 else { return nil }
            let millivolts = v.uint16BE(at: f + 2)
            let temperature = Int16(bitPattern: v.uint16BE(at: f + 4))
            return .eddystoneTLM(
                EddystoneTLMFrame(
                    batteryMillivolts: millivolts == 0 ? nil : millivolts,
                    temperatureRaw: temperature == Int16.min ? nil : temperature,
                    advertisingCount: v.uint32BE(at: f + 6), uptimeDeciseconds: v.uint32BE(at: f + 10)))
        default:
            return .eddystoneOther(EddystoneOtherFrame(frameType: v[f]))
        }
    }

    /// The received power at 1 m in dBm that the aggregator's distance estimate starts from, or nil
    /// when the frame has none or an implausible one.
    ///
    /// iBeacon's measured power and AltBeacon's reference RSSI are already 1 m values. Eddystone
    /// calibrates at 0 m; its specification tells implementers to measure at 1 m and *add* 41 dB,
    /// the free-space loss over the first metre at 2.4 GHz (20·log10(4π·1 m / 12.5 cm) ≈ 40 dB,
    /// rounded up by Google for antenna effects) — so the 1 m value is the 0 m value minus 41.
    /// A 1 m value of 0 dBm or more is not a calibration (iBeacon uses 0 for "unknown"; some sensors
    /// put other data there), nor is one below -127 dBm, the lowest level HCI reports and the wire
    /// carries (a measured power byte of 0x80, an Eddystone 0 m power below -86 dBm): both give nil,
    /// so the aggregator falls back to its default.
    public var powerAt1m: Int8? {
        let value: Int
        switch self {
        case .iBeacon(let frame): value = Int(frame.measuredPower)
        case .altBeacon(let frame): value = Int(frame.referenceRSSI)
        case .eddystoneUID(let frame): value = Int(frame.txPowerAt0m) - Self.eddystoneOneMetreLoss
        case .eddystoneURL(let frame): value = Int(frame.txPowerAt0m) - Self.eddystoneOneMetreLoss
        case .eddystoneTLM, .eddystoneOther: return nil
        }
        guard value < 0, value >= Int(AdvertisingReport.powerRange.lowerBound) else { return nil }
        return Int8(value)
    }

    /// dB between Eddystone's 0 m calibration and a 1 m one (Eddystone spec, "Tx Power").
    public static let eddystoneOneMetreLoss = 41
}

extension AdvertisingData {
    /// Every beacon frame in the data, in order (usually one).
    public var beaconFrames: some Sequence<BeaconFrame> {
        lazy.compactMap(BeaconFrame.init)
    }

    /// The first beacon frame in the data, or nil. The hot-path call: one walk by index, no
    /// allocation, no reference counting. Structures before a malformed one are searched.
    public var firstBeaconFrame: BeaconFrame? { BeaconFrame.first(in: bytes) }

    /// The frame a sighting is keyed and calibrated by: the first that carries an identity
    /// (iBeacon, Eddystone-UID, AltBeacon), else the first of any kind. An extended advert has room
    /// for several frames, and an Eddystone-TLM ahead of an iBeacon must not hide it. As cheap as
    /// ``firstBeaconFrame`` when the first frame has an identity.
    public var keyBeaconFrame: BeaconFrame? { BeaconFrame.key(in: bytes) }
}

extension BeaconFrame {
    /// The first frame in the advertising data `bytes`, found by index without slicing.
    static func first(in bytes: ArraySlice<UInt8>) -> BeaconFrame? {
        var cursor = bytes.startIndex
        while case .structure(let lengthIndex, let valueEnd) = ADWalk.step(bytes, &cursor) {
            let frame = decode(type: bytes[lengthIndex + 1], bytes, from: lengthIndex + 2, to: valueEnd)
            if frame != nil { return frame }
        }
        return nil
    }

    /// The first frame with an identity in `bytes`, else the first frame (see ``AdvertisingData/keyBeaconFrame``).
    static func key(in bytes: ArraySlice<UInt8>) -> BeaconFrame? {
        var first: BeaconFrame?
        var cursor = bytes.startIndex
        while case .structure(let lengthIndex, let valueEnd) = ADWalk.step(bytes, &cursor) {
            guard let frame = decode(type: bytes[lengthIndex + 1], bytes, from: lengthIndex + 2, to: valueEnd) else { continue }
            if frame.deviceKey != nil { return frame }
            if first == nil { first = frame }
        }
        return first
    }
}
