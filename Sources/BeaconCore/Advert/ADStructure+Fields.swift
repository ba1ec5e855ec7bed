// Typed readings of the common AD types. Each returns nil (or nothing) when the structure is of
// another type or too short for its fixed part, the same rejections bluetooth-data-tools applies
// (a manufacturer structure needs its two company-id bytes, a Tx Power Level exactly one byte).

extension ADStructure {
    /// Manufacturer Specific Data: the company id (little-endian on air) and what follows it.
    public var manufacturerData: (companyID: UInt16, payload: ArraySlice<UInt8>)? {
        guard type == .manufacturerSpecificData, value.count >= 2 else { return nil }
        let start = value.startIndex
        return (value.uint16LE(at: start), value[(start + 2)...])
    }

    /// Service Data with a 16-bit UUID: the UUID and what follows it. The cheap form of
    /// ``serviceData`` for the Eddystone check.
    public var serviceData16: (uuid: UInt16, payload: ArraySlice<UInt8>)? {
        guard type == .serviceData16, value.count >= 2 else { return nil }
        let start = value.startIndex
        return (value.uint16LE(at: start), value[(start + 2)...])
    }

    /// Service Data of any UUID size, with the UUID expanded to 128 bits.
    public var serviceData: (uuid: UUID128, payload: ArraySlice<UInt8>)? {
        let start = value.startIndex
        switch type {
        case .serviceData16 where value.count >= 2:
            return (UUID128(bluetoothShort: UInt32(value.uint16LE(at: start))), value[(start + 2)...])
        case .serviceData32 where value.count >= 4:
            return (UUID128(bluetoothShort: value.uint32LE(at: start)), value[(start + 4)...])
        case .serviceData128 where value.count >= 16:
            return (UUID128(littleEndianAt: start, in: value), value[(start + 16)...])
        default:
            return nil
        }
    }

    /// Tx Power Level in dBm; nil unless the structure holds exactly one byte.
    public var txPowerLevel: Int8? {
        guard type == .txPowerLevel, value.count == 1 else { return nil }
        return value.int8(at: value.startIndex)
    }

    /// The local name and whether it is the complete one; nil for other types and empty names.
    /// Invalid UTF-8 is repaired with U+FFFD rather than rejected (names are for people).
    public var localName: (name: String, isComplete: Bool)? {
        guard type == .completeLocalName || type == .shortenedLocalName, !value.isEmpty else { return nil }
        return (String(decoding: value, as: UTF8.self), type == .completeLocalName)
    }

    /// The service UUIDs of a 16-, 32- or 128-bit UUID list, in order; empty for other types.
    /// A trailing partial UUID is ignored.
    public var serviceUUIDs: [UUID128] {
        let width: Int
        switch type {
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16: width = 2
        case .incompleteServiceUUIDs32, .completeServiceUUIDs32: width = 4
        case .incompleteServiceUUIDs128, .completeServiceUUIDs128: width = 16
        default: return []
        }
        var uuids: [UUID128] = []
        var i = value.startIndex
        while value.endIndex - i >= width {
            switch width {
            case 2: uuids.append(UUID128(bluetoothShort: UInt32(value.uint16LE(at: i))))
            case 4: uuids.append(UUID128(bluetoothShort: value.uint32LE(at: i)))
            default: uuids.append(UUID128(littleEndianAt: i, in: value))
            }
            i += width
        }
        return uuids
    }
}

/// What an advert says about itself in the common AD types — name, service UUIDs, service and
/// manufacturer data, Tx power — gathered into one value for logs, diagnostics and tests.
///
/// Unlike the walk and the frame decoders this allocates (dictionaries, strings); do not build one
/// per report on the hot path.
public struct AdvertisementSummary: Hashable, Sendable {
    /// The complete local name if there is one, else the shortened one.
    public var localName: String?
    /// Every service UUID listed, in order of appearance, duplicates removed.
    public var serviceUUIDs: [UUID128] = []
    /// Service data by UUID (a later structure with the same UUID wins).
    public var serviceData: [UUID128: [UInt8]] = [:]
    /// Manufacturer data by company id, without the company-id bytes (a later structure wins).
    public var manufacturerData: [UInt16: [UInt8]] = [:]
    /// The advertised Tx Power Level in dBm.
    public var txPower: Int8?
    /// The first malformed structure, if the walk stopped at one; what came before it is above.
    public var malformation: ADStructureError?

    /// Summarises `data`, keeping every well-formed structure before the first malformed one.
    public init(_ data: AdvertisingData) {
        var iterator = data.makeIterator()
        var completeName: String?
        var shortName: String?
        while let structure = iterator.next() {
            if let (name, isComplete) = structure.localName {
                if isComplete { completeName = name } else if shortName == nil { shortName = name }
            } else if let (company, payload) = structure.manufacturerData {
                manufacturerData[company] = Array(payload)
            } else if let (uuid, payload) = structure.serviceData {
                serviceData[uuid] = Array(payload)
            } else if let tx = structure.txPowerLevel {
                txPower = tx
            } else {
                for uuid in structure.serviceUUIDs where !serviceUUIDs.contains(uuid) {
                    serviceUUIDs.append(uuid)
                }
            }
        }
        localName = completeName ?? shortName
        malformation = iterator.malformation
    }
}
