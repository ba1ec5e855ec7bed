public import BeaconCore

/// The advertising reports of one or more captures, in the order a controller sends them: every
/// LE Advertising Report and LE Extended Advertising Report event of the first capture, then of
/// the next, each with its recorded time.
///
/// While scanning in the format an event was recorded in, the controller sends its bytes as they
/// are (RSSI, address, data and all); in the other format it sends each report converted the way
/// a controller reports the same advert (Core Vol 4 Part E §7.7.65.13, the legacy PDU table), so
/// one capture drives both the legacy and the extended path.
public struct AdvertReplay: Sendable {
    /// One recorded advertising event.
    public struct Item: Sendable {
        /// Recorded time, µs, continuous across captures (each following the one before after
        /// ``AdvertReplay/captureGap``).
        public var time: Int64
        /// The event from Event_Code (0x3E) on, as recorded.
        public var event: [UInt8]
        /// Whether it is an LE Extended Advertising Report.
        public var isExtended: Bool
        /// Its reports.
        public var reports: [AdvertisingReport]

        /// Makes an item; `reports` are `event`'s.
        public init(time: Int64, event: [UInt8], isExtended: Bool, reports: [AdvertisingReport]) {
            self.time = time
            self.event = event
            self.isExtended = isExtended
            self.reports = reports
        }
    }

    /// The events, in sending order.
    public let items: [Item]
    /// The time between the last event of one capture and the first of the next, µs.
    public static let captureGap: Int64 = 100_000

    /// Collects the advertising events of `captures`; a malformed one is left out (the edge's
    /// `decode` would count it as malformed and print nothing for it either).
    public init(captures: [BtsnoopFile]) throws(BtsnoopError) {
        var items: [Item] = []
        for capture in captures {
            var records = capture.records
            var first: Int64?
            let base = items.last.map { $0.time + Self.captureGap } ?? 0
            while let record = try records.next() {
                guard let bytes = record.hciEvent, let event = try? HCIEvent(bytes),
                    let subevent = event.leSubeventCode,
                    subevent == HCIEvent.leAdvertisingReport || subevent == HCIEvent.leExtendedAdvertisingReport
                else { continue }
                let copy = Array(bytes)
                guard let parsed = try? HCIEvent(copy[...]) else { continue }
                var reports: [AdvertisingReport] = []
                var iterator = parsed.advertisingReports()
                do {
                    while let report = try iterator.next() { reports.append(report) }
                } catch {
                    continue
                }
                let recorded = record.timestamp.unixMicroseconds
                let start = first ?? recorded
                first = start
                items.append(
                    Item(
                        time: base + max(0, recorded - start), event: copy,
                        isExtended: subevent == HCIEvent.leExtendedAdvertisingReport, reports: reports))
            }
        }
        self.items = items
    }

    /// How many reports there are in all.
    public var reportCount: Int { items.reduce(0) { $0 + $1.reports.count } }

    /// The H4 event packets (type 0x04 first) that send `item` while scanning in `scan`, and how
    /// many of its reports have no form in that format (an extended-only advert under legacy
    /// scanning). Nothing while not scanning.
    public static func packets(for item: Item, scan: VirtualController.Scan) -> (packets: [[UInt8]], unreportable: Int) {
        switch scan {
        case .off:
            return ([], item.reports.count)
        case .legacy where !item.isExtended, .extended where item.isExtended:
            return ([[HCIEvent.h4EventPacketType] + item.event], 0)
        case .legacy:
            let converted = item.reports.compactMap(legacyEvent)
            return (converted.map { [HCIEvent.h4EventPacketType] + $0 }, item.reports.count - converted.count)
        case .extended:
            return (item.reports.map { [HCIEvent.h4EventPacketType] + extendedEvent($0) }, 0)
        }
    }

    /// An LE Advertising Report event with `report` alone, as a controller scanning with the legacy
    /// commands reports an advert sent with a legacy PDU; nil for any other advert.
    public static func legacyEvent(_ report: AdvertisingReport) -> [UInt8]? {
        let eventType: UInt8
        if report.isExtended {
            guard report.isLegacyPDU, report.dataStatus == .complete, report.data.count <= 31 else { return nil }
            switch report.eventType & 0x1F {
            case 0x13: eventType = 0  // ADV_IND
            case 0x15: eventType = 1  // ADV_DIRECT_IND
            case 0x12: eventType = 2  // ADV_SCAN_IND
            case 0x10: eventType = 3  // ADV_NONCONN_IND
            case 0x1B, 0x1A: eventType = 4  // SCAN_RSP to ADV_IND or ADV_SCAN_IND
            default: return nil
            }
        } else {
            eventType = UInt8(truncatingIfNeeded: report.eventType)
        }
        let parameters: [UInt8] =
            [HCIEvent.leAdvertisingReport, 0x01, eventType, report.addressType.rawValue] + addressBytes(report.address)
            + [UInt8(report.data.count)] + report.data + [rssiByte(report.rssi)]
        return [HCIEvent.leMetaEventCode, UInt8(parameters.count)] + parameters
    }

    /// An LE Extended Advertising Report event with `report` alone: as recorded for an extended
    /// report; for a legacy one, the extended event type of its legacy PDU, LE 1M, no secondary
    /// PHY, no ADI, no Tx power, no periodic advertising.
    public static func extendedEvent(_ report: AdvertisingReport) -> [UInt8] {
        let eventType: UInt16
        if report.isExtended {
            eventType = report.eventType
        } else {
            switch report.eventType {
            case 0: eventType = 0x13
            case 1: eventType = 0x15
            case 2: eventType = 0x12
            case 4: eventType = 0x1B  // a legacy SCAN_RSP does not say to which advert: ADV_IND's
            default: eventType = 0x10
            }
        }
        var parameters: [UInt8] = [HCIEvent.leExtendedAdvertisingReport, 0x01]
        parameters += [UInt8(truncatingIfNeeded: eventType), UInt8(eventType >> 8), report.addressType.rawValue]
        parameters += addressBytes(report.address)
        parameters += [
            report.isExtended ? report.primaryPHY : 0x01, report.isExtended ? report.secondaryPHY : 0x00,
            report.advertisingSID ?? 0xFF, report.txPower.map { UInt8(bitPattern: $0) } ?? 0x7F, rssiByte(report.rssi),
            UInt8(truncatingIfNeeded: report.periodicAdvertisingInterval), UInt8(report.periodicAdvertisingInterval >> 8),
            report.directAddressType?.rawValue ?? 0x00,
        ]
        parameters += report.directAddress.map(addressBytes) ?? [0, 0, 0, 0, 0, 0]
        parameters += [UInt8(report.data.count)] + report.data
        return [HCIEvent.leMetaEventCode, UInt8(parameters.count)] + parameters
    }

    private static func addressBytes(_ address: BluetoothAddress) -> [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: address.rawValue >> (8 * UInt64($0))) }
    }

    /// 127 is "not available", as in the reports.
    private static func rssiByte(_ rssi: Int8?) -> UInt8 {
        rssi.map { UInt8(bitPattern: $0) } ?? 0x7F
    }
}
