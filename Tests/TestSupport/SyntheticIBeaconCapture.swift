import Foundation

/// A btsnoop capture (Android's H4 format, datalink 1002) of one iBeacon heard every half
/// second, starting now: replayed by beacon-edge at recorded speed it keeps the edge connected
/// and publishing for as long as the capture lasts.
public enum SyntheticIBeaconCapture {
    public static let uuid: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
    /// The device's id on the wire: its own major 1, minor 207.
    public static let device = "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207"

    /// Writes `seconds` of the capture to `path`.
    public static func write(to path: String, seconds: Int) throws {
        // AD structures: flags, then Apple's iBeacon (UUID, major 1, minor 207, measured power -59).
        let advert: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid + [0x00, 0x01, 0x00, 0xCF, 0xC5]
        // HCI LE Advertising Report event: one ADV_IND report from a public address, RSSI -55.
        let report: [UInt8] = [0x02, 0x01, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, UInt8(advert.count)] + advert + [0xC9]
        let packet: [UInt8] = [0x04, 0x3E, UInt8(report.count)] + report
        var bytes = Array("btsnoop".utf8) + [0] + bigEndian(UInt32(1)) + bigEndian(UInt32(1002))
        // Microseconds since 0000-01-01, the format's epoch, 62 168 256 000 s before Unix's.
        let start = UInt64(Date().timeIntervalSince1970 * 1_000_000) + 62_168_256_000_000_000
        for index in 0..<(seconds * 2) {
            bytes += bigEndian(UInt32(packet.count)) + bigEndian(UInt32(packet.count))
            bytes += bigEndian(UInt32(3)) + bigEndian(UInt32(0))  // received, an event; no drops
            bytes += bigEndian(start + UInt64(index) * 500_000) + packet
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func bigEndian<I: FixedWidthInteger>(_ value: I) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
