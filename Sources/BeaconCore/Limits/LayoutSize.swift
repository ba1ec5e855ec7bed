/// The size in bytes of a store's layout payload (`<root>/stores/<store>/layout`) as the
/// aggregator encodes it, counted from the parts of the store's description without encoding it:
/// the chain config's validation, which cannot see the wire module, refuses a store whose layout
/// would exceed ``WireBounds/maxPayloadBytes`` and so be refused by every decoder. The time is
/// counted at 13 digits (every millisecond time before 2286); the aggregator's tests hold the count
/// to what the encoder writes (WireBoundsTests).
public struct LayoutSize: Sendable, Equatable {
    /// The bytes counted so far: the store's own members and every section and gateway added.
    public private(set) var bytes: Int
    private var sections = 0
    private var gateways = 0

    /// A store `major` named `name`, without sections or gateways yet.
    public init(major: Int, name: String) {
        // {"v":1,"major":M,"name":"…","t":T,"sections":[…],"gateways":[…]}
        bytes = #"{"v":1,"major":,"name":,"t":,"sections":[],"gateways":[]}"#.utf8.count
            + Self.digits(major) + Self.string(name) + 13
    }

    /// Adds a section: its minor, name, polygon (`[x, y]` points, when it has one), the minors
    /// it is adjacent to (when the store gives adjacency), and whether it has a street door.
    public mutating func addSection(minor: Int, name: String, polygon: [[Double]]?, adjacent: [Int]?, streetDoor: Bool) {
        bytes += (sections > 0 ? 1 : 0) + #"{"minor":,"name":}"#.utf8.count + Self.digits(minor) + Self.string(name)
        if let polygon {
            bytes += #","polygon":[]"#.utf8.count + max(0, polygon.count - 1) + polygon.reduce(0) { $0 + Self.point($1) }
        }
        if let adjacent {
            bytes += #","adjacent":[]"#.utf8.count + max(0, adjacent.count - 1) + adjacent.reduce(0) { $0 + Self.digits($1) }
        }
        if streetDoor { bytes += #","street_door":true"#.utf8.count }
        sections += 1
    }

    /// Adds a gateway: its id, the minor of its section, and its position when it has one.
    public mutating func addGateway(id: String, minor: Int, position: [Double]?) {
        bytes += (gateways > 0 ? 1 : 0) + #"{"gw":,"minor":}"#.utf8.count + Self.string(id) + Self.digits(minor)
        if let position { bytes += #","position":"#.utf8.count + Self.point(position) }
        gateways += 1
    }

    /// `[x,y]`, each coordinate as the wire writes it.
    static func point(_ coordinates: [Double]) -> Int {
        2 + max(0, coordinates.count - 1) + coordinates.reduce(0) { $0 + coordinate($1) }
    }

    /// A coordinate as the wire writes it: clamped to ±``WireBounds/maxCoordinate`` (NaN to its
    /// lower end), to the millimetre, the fraction's trailing zeros cut but one digit kept.
    static func coordinate(_ value: Double) -> Int {
        let limit = WireBounds.maxCoordinate
        let clamped = value.isNaN ? -limit : min(max(value, -limit), limit)
        let millimetres = Int64((abs(clamped) * 1000).rounded())
        let fraction = millimetres % 1000
        let fractionDigits = fraction % 100 == 0 ? 1 : fraction % 10 == 0 ? 2 : 3
        return (clamped < 0 && millimetres != 0 ? 1 : 0) + digits(Int(millimetres / 1000)) + 1 + fractionDigits
    }

    /// A JSON string as json-c writes it: quoted, `"` and `\` escaped, control characters as
    /// short escapes or `\u00XX`, the rest as its UTF-8 bytes.
    static func string(_ text: String) -> Int {
        var count = 2
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: count += 2
            case 0x00..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }

    /// The decimal digits of `value`, with its sign.
    static func digits(_ value: Int) -> Int {
        var magnitude = value.magnitude
        var count = value < 0 ? 2 : 1
        while magnitude >= 10 {
            magnitude /= 10
            count += 1
        }
        return count
    }
}
