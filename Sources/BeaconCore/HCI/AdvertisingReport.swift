/// One advertisement as the controller reported it: an LE Advertising Report (legacy, subevent
/// 0x02) or an LE Extended Advertising Report (subevent 0x0D), in one shape.
///
/// ``data`` shares the event's storage (no copy); keep the report only as long as you would keep
/// the event bytes, or copy ``data`` into an `Array` when you need it longer.
public struct AdvertisingReport: Hashable, Sendable {
    /// True for an extended report (0x0D), false for a legacy one (0x02).
    public var isExtended: Bool
    /// Event_Type as received: 0–4 for legacy reports (ADV_IND, ADV_DIRECT_IND, ADV_SCAN_IND,
    /// ADV_NONCONN_IND, SCAN_RSP), a bit field for extended ones. Use the `is…` properties to ask.
    public var eventType: UInt16
    /// The advertiser's address type.
    public var addressType: AddressType
    /// The advertiser's address (all zero for anonymous extended adverts).
    public var address: BluetoothAddress
    /// Received signal strength in dBm, -127…20; nil when the controller says 127 (not available)
    /// or sends a value outside that range.
    public var rssi: Int8?
    /// The advertiser's transmit power in dBm, -127…20 (extended reports only); nil when absent,
    /// 127, or outside that range.
    public var txPower: Int8?
    /// Primary_PHY (1 = LE 1M, 3 = LE Coded); 1 for legacy reports.
    public var primaryPHY: UInt8
    /// Secondary_PHY (0 = none); 0 for legacy reports.
    public var secondaryPHY: UInt8
    /// Advertising_SID; nil when 0xFF (no ADI field) and for legacy reports.
    public var advertisingSID: UInt8?
    /// Periodic_Advertising_Interval in 1.25 ms units; 0 when there is no periodic advertising.
    public var periodicAdvertisingInterval: UInt16
    /// For a directed extended advert, who it was directed to; nil otherwise.
    public var directAddress: BluetoothAddress?
    /// The type of ``directAddress``; nil when there is none.
    public var directAddressType: AddressType?
    /// The advertising data: a sequence of AD structures (see ``AdvertisingData``).
    public var data: ArraySlice<UInt8>
    /// Where this report starts, in bytes from the start of the parsed packet.
    public var offset: Int

    /// The power levels HCI reports (Core spec Vol 4 Part E §7.7.65.2 and §7.7.65.13: RSSI and
    /// TX_Power are -127…+20 dBm, 127 meaning not available).
    public static let powerRange: ClosedRange<Int8> = -127...20

    /// A reported RSSI or TX_Power byte as a level, nil for "not available" (127) and for any other
    /// value outside ``powerRange``: a controller that sends one is faulty, and passing it on would
    /// put a number on the wire that no receiver accepts (the wire's bounds are the same range).
    @inline(__always)
    static func power(_ value: Int8) -> Int8? {
        powerRange.contains(value) ? value : nil
    }

    /// The advertising data as AD structures.
    public var advertisingData: AdvertisingData { AdvertisingData(data) }

    /// The extended-report bits for this report (legacy event types mapped to what the spec says
    /// they mean: Core spec Vol 4 Part E §7.7.65.13, the legacy PDU table).
    var eventProperties: UInt16 {
        guard !isExtended else { return eventType }
        switch eventType {
        case 0: return 0b1_0011  // ADV_IND: connectable, scannable
        case 1: return 0b1_0101  // ADV_DIRECT_IND: connectable, directed
        case 2: return 0b1_0010  // ADV_SCAN_IND: scannable
        case 3: return 0b1_0000  // ADV_NONCONN_IND
        case 4: return 0b1_1000  // SCAN_RSP (to an ADV_IND or ADV_SCAN_IND)
        default: return 0b1_0000
        }
    }

    /// The advertiser accepts connections.
    public var isConnectable: Bool { eventProperties & 0x01 != 0 }
    /// The advertiser accepts scan requests.
    public var isScannable: Bool { eventProperties & 0x02 != 0 }
    /// The advert was directed at one device.
    public var isDirected: Bool { eventProperties & 0x04 != 0 }
    /// This is a scan response, not the advert itself.
    public var isScanResponse: Bool { eventProperties & 0x08 != 0 }
    /// The advert used a legacy PDU (always for legacy reports; extended reports say per advert).
    public var isLegacyPDU: Bool { eventProperties & 0x10 != 0 }

    /// Whether ``data`` is the whole advertising data (extended reports may split it).
    public var dataStatus: DataStatus {
        switch (eventProperties >> 5) & 0b11 {
        case 0: return .complete
        case 1: return .incompleteMoreToCome
        default: return .incompleteTruncated
        }
    }

    /// Whether a report carries all of its advertiser's data (Event_Type bits 5–6).
    public enum DataStatus: Sendable, Hashable {
        /// All of it.
        case complete
        /// Part of it; more reports with the rest follow.
        case incompleteMoreToCome
        /// Part of it; the controller dropped the rest.
        case incompleteTruncated
    }
}
