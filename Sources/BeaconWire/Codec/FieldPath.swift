/// Where a reader is in a document, kept trivial (no string, no reference count) because a
/// reader is made per sighting, and spelled out as a JSON path (`sightings[3].rssi`,
/// `counters.rejects.bad_json`) only when an error needs it.
enum FieldPath: Sendable {
    /// The payload's top-level object.
    case root
    /// An element of a top-level array, e.g. `sightings[3]`.
    case element(of: StaticString, index: Int)
    /// A top-level member object, e.g. `counters`.
    case member(StaticString)
    /// A member of a top-level member object, e.g. `counters.rejects` (BeaconNet payloads nest
    /// objects no deeper than this).
    case nested(StaticString, StaticString)

    /// The path of this object itself (`""` for the root).
    var text: String {
        switch self {
        case .root: ""
        case .element(let array, let index): "\(array)[\(index)]"
        case .member(let name): name.description
        case .nested(let parent, let name): "\(parent).\(name)"
        }
    }

    /// The path of an object member `key` of this object.
    func child(_ key: StaticString) -> FieldPath {
        switch self {
        case .root: .member(key)
        case .member(let parent): .nested(parent, key)
        case .element, .nested: preconditionFailure("BeaconNet payloads do not nest objects this deep")
        }
    }

    /// The path of a field of this object.
    func appending(_ key: String) -> String {
        switch self {
        case .root: key
        default: text + "." + key
        }
    }

    func appending(_ key: StaticString) -> String { appending(key.description) }

    /// The path of a member whose key comes from the payload (the names of a counter map): the key
    /// with control characters escaped and cut after ``maxKeyBytes`` (`…` then), so that a path stays
    /// one short line and fits a dead letter's `field` (``WireText/maxFieldLength``) whatever the
    /// payload's keys are.
    func appending(payloadKey key: String) -> String {
        var text = ""
        for scalar in key.unicodeScalars {
            let shown = scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
            guard text.utf8.count + shown.utf8.count <= Self.maxKeyBytes else {
                text += "…"
                break
            }
            text += shown
        }
        return appending(text)
    }

    /// The most bytes of a payload's key shown in a path.
    static let maxKeyBytes = 64
}

extension StaticString {
    /// The literal as a C string (compiler-emitted literals are NUL-terminated), without copying.
    @inline(__always)
    var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}

extension UnsafePointer<CChar> {
    /// Whether this C string equals `literal`. Stops at the first difference, so it never reads
    /// past the end of a shorter string.
    @inline(__always)
    func matches(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        let bytes = literal.utf8Start
        for index in 0..<count where UInt8(bitPattern: self[index]) != bytes[index] { return false }
        return self[count] == 0
    }
}
