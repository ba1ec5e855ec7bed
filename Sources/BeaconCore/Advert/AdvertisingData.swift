/// The advertising data of one report: a run of AD structures, each `Length`, `AD Type`,
/// `Length − 1` bytes of data (Core spec Vol 3 Part C §11, Supplement Part A).
///
/// Iterating walks the structures by offset, copying nothing. Every length is checked: a structure
/// that runs past the end stops the walk and is recorded as ``ADStructureError/lengthOverrun(offset:declaredLength:available:)``;
/// the structures before it are still delivered (the policy of bluetooth-data-tools and of the
/// Android Beacon Library: one bad structure must not hide a good beacon frame before it).
///
/// A zero length byte is skipped as padding and the walk goes on. The spec allows a zero length
/// only to end the data early, so on a conforming advert the rest is zeros and both readings agree;
/// skipping also reads the zero-padded advert + scan response concatenations some stacks hand over.
public struct AdvertisingData: Sequence, Hashable, Sendable {
    /// The raw advertising data.
    public let bytes: ArraySlice<UInt8>

    /// Wraps advertising data; nothing is checked until it is walked.
    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// Wraps advertising data held in an array.
    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// A walk over the AD structures.
    public func makeIterator() -> ADStructureIterator { ADStructureIterator(bytes) }

    /// The first malformed structure, or nil when every length fits.
    public var malformation: ADStructureError? {
        var iterator = makeIterator()
        while iterator.next() != nil {}
        return iterator.malformation
    }

    /// Throws the first malformed structure; returns when every length fits.
    public func validate() throws(ADStructureError) {
        if let malformation { throw malformation }
    }
}

/// Walks AD structures by offset. After `next()` returns nil, ``malformation`` says whether the walk
/// ended cleanly or stopped at a structure whose length runs past the data.
public struct ADStructureIterator: IteratorProtocol {
    private let bytes: ArraySlice<UInt8>
    private var cursor: Int
    /// Set when the walk stopped at a structure that does not fit.
    public private(set) var malformation: ADStructureError?

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.cursor = bytes.startIndex
    }

    /// The next well-formed structure; nil at the end of the data or at the first malformed one.
    public mutating func next() -> ADStructure? {
        switch ADWalk.step(bytes, &cursor) {
        case .structure(let lengthIndex, let valueEnd):
            return ADStructure(
                type: ADType(rawValue: bytes[lengthIndex + 1]), value: bytes[(lengthIndex + 2)..<valueEnd],
                offset: lengthIndex - bytes.startIndex)
        case .overrun(let lengthIndex, let declared, let available):
            malformation = .lengthOverrun(
                offset: lengthIndex - bytes.startIndex, declaredLength: declared, available: available)
            return nil
        case .end:
            return nil
        }
    }
}

/// One step of the AD walk, shared by ``ADStructureIterator`` and the index-only frame search
/// (which must not diverge from it: same padding rule, same overrun rule).
enum ADWalk {
    /// What the next step found.
    enum Step {
        /// A structure whose length byte is at `lengthIndex` (type at +1, value from +2 to `valueEnd`).
        case structure(lengthIndex: Int, valueEnd: Int)
        /// A structure at `lengthIndex` declaring `declared` bytes with only `available` after it.
        case overrun(lengthIndex: Int, declared: Int, available: Int)
        /// No more data.
        case end
    }

    /// Advances `cursor` past zero padding and one structure; after an overrun, to the end.
    @inline(__always)
    static func step(_ bytes: ArraySlice<UInt8>, _ cursor: inout Int) -> Step {
        let end = bytes.endIndex
        while cursor < end {
            let length = Int(bytes[cursor])
            if length == 0 {
                cursor += 1
                continue
            }
            let lengthIndex = cursor
            let available = end - cursor - 1
            guard length <= available else {
                cursor = end
                return .overrun(lengthIndex: lengthIndex, declared: length, available: available)
            }
            cursor = lengthIndex + 1 + length
            return .structure(lengthIndex: lengthIndex, valueEnd: cursor)
        }
        return .end
    }
}

/// One AD structure: its type and its data, borrowed from the advertising data.
public struct ADStructure: Hashable, Sendable {
    /// The AD type.
    public let type: ADType
    /// The AD data (Length − 1 bytes), sharing the report's storage.
    public let value: ArraySlice<UInt8>
    /// Where the structure's length byte sits, counted from the start of the advertising data.
    public let offset: Int

    /// Builds a structure; for tests and for callers that assemble adverts.
    public init(type: ADType, value: ArraySlice<UInt8>, offset: Int = 0) {
        self.type = type
        self.value = value
        self.offset = offset
    }
}

/// Why advertising data is malformed.
public enum ADStructureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The structure whose length byte is at `offset` declares `declaredLength` bytes (type + data)
    /// but only `available` follow.
    case lengthOverrun(offset: Int, declaredLength: Int, available: Int)

    /// The offset of the length byte at fault.
    public var offset: Int {
        switch self {
        case .lengthOverrun(let offset, _, _): return offset
        }
    }

    /// One line for logs: where the structure is and how it overruns.
    public var description: String {
        switch self {
        case .lengthOverrun(let offset, let declared, let available):
            return "AD structure at byte \(offset) declares \(declared) bytes, only \(available) follow"
        }
    }
}

/// An AD type (Bluetooth Assigned Numbers §2.3), as a struct over the byte so unknown types pass.
public struct ADType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type byte.
    public let rawValue: UInt8

    /// Wraps a type byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Flags.
    public static let flags = ADType(rawValue: 0x01)
    /// 0x02 Incomplete List of 16-bit Service UUIDs.
    public static let incompleteServiceUUIDs16 = ADType(rawValue: 0x02)
    /// 0x03 Complete List of 16-bit Service UUIDs.
    public static let completeServiceUUIDs16 = ADType(rawValue: 0x03)
    /// 0x04 Incomplete List of 32-bit Service UUIDs.
    public static let incompleteServiceUUIDs32 = ADType(rawValue: 0x04)
    /// 0x05 Complete List of 32-bit Service UUIDs.
    public static let completeServiceUUIDs32 = ADType(rawValue: 0x05)
    /// 0x06 Incomplete List of 128-bit Service UUIDs.
    public static let incompleteServiceUUIDs128 = ADType(rawValue: 0x06)
    /// 0x07 Complete List of 128-bit Service UUIDs.
    public static let completeServiceUUIDs128 = ADType(rawValue: 0x07)
    /// 0x08 Shortened Local Name.
    public static let shortenedLocalName = ADType(rawValue: 0x08)
    /// 0x09 Complete Local Name.
    public static let completeLocalName = ADType(rawValue: 0x09)
    /// 0x0A Tx Power Level.
    public static let txPowerLevel = ADType(rawValue: 0x0A)
    /// 0x16 Service Data – 16-bit UUID (Eddystone rides here, UUID 0xFEAA).
    public static let serviceData16 = ADType(rawValue: 0x16)
    /// 0x20 Service Data – 32-bit UUID.
    public static let serviceData32 = ADType(rawValue: 0x20)
    /// 0x21 Service Data – 128-bit UUID.
    public static let serviceData128 = ADType(rawValue: 0x21)
    /// 0xFF Manufacturer Specific Data (iBeacon and AltBeacon ride here).
    public static let manufacturerSpecificData = ADType(rawValue: 0xFF)

    /// `0x16`-style hex, as the assigned-numbers tables print AD types.
    public var description: String { "0x" + (rawValue < 0x10 ? "0" : "") + String(rawValue, radix: 16) }
}
