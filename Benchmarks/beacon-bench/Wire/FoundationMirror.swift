import Foundation

/// The same batch as plain Codable structs, decoded by Foundation's `JSONDecoder`: what a Swift
/// programmer would write without BeaconWire. No validation beyond what Codable does.
struct BatchMirror: Decodable {
    let v: Int
    let gw: String
    let seq: UInt64
    let sent: Int64
    let sightings: [SightingMirror]
}

/// One sighting as a Codable struct.
struct SightingMirror: Decodable {
    let dev: String
    let t: Int64
    let rssi: Int
    let tx: Int?
    let addr: String?
}
