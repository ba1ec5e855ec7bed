import BeaconCore
import BeaconEdge
import BeaconWire
import Foundation
import TestSupport
import Logging

/// Tests log errors only; `BEACONNET_TEST_LOG=debug` shows the services' story.
let testLogger: Logger = {
    var logger = Logger(label: "beaconnet.edge.tests")
    logger.logLevel = testLogLevel
    return logger
}()

let testLogLevel: Logger.Level =
    ProcessInfo.processInfo.environment["BEACONNET_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error


/// A gateway id for tests.
let testGateway = try! GatewayID("gw-test-1")

/// The site UUID of the iBeacons in the csacca capture ("INTELLI_ROCKS_HW").
let csaccaUUID = UUID128("494E5445-4C4C-495F-524F-434B535F4857")!

/// A legacy LE Advertising Report event (from Event_Code on) with one report.
func legacyEvent(address: [UInt8] = [1, 2, 3, 4, 5, 0xC6], addressType: UInt8 = 0, rssi: Int8 = -60, data: [UInt8]) -> [UInt8] {
    let report: [UInt8] = [0x00, addressType] + address + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
    let parameters: [UInt8] = [0x02, 0x01] + report
    return [0x3E, UInt8(parameters.count)] + parameters
}

/// An LE Extended Advertising Report event (subevent 0x0D) with one report per entry of
/// `reports`; `status` is the data status (0 complete, 1 more to come, 2 truncated), `sid` the
/// advertising set (0xFF: none).
/// `legacy` sets the legacy-PDU bit (what a controller scanning with the extended commands reports
/// for a legacy advert).
func extendedEvent(_ reports: [(address: [UInt8], addressType: UInt8, status: UInt16, sid: UInt8, data: [UInt8])], rssi: Int8 = -60, legacy: Bool = false) -> [UInt8] {
    var parameters: [UInt8] = [0x0D, UInt8(reports.count)]
    for r in reports {
        let eventType = r.status << 5 | (legacy ? 0x10 : 0)  // non-connectable, non-scannable, undirected
        parameters += [UInt8(eventType & 0xFF), UInt8(eventType >> 8), r.addressType] + r.address
        parameters += [0x01, 0x02, r.sid, 0x7F, UInt8(bitPattern: rssi), 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0]
        parameters += [UInt8(r.data.count)] + r.data
    }
    return [0x3E, UInt8(parameters.count)] + parameters
}

/// iBeacon advertising data for `uuid`, `major`, `minor`, measured power -59.
func iBeaconData(_ uuid: UUID128, major: UInt16, minor: UInt16) -> [UInt8] {
    var bytes: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
    for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: uuid.high >> UInt64(shift))) }
    for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: uuid.low >> UInt64(shift))) }
    bytes += [UInt8(major >> 8), UInt8(truncatingIfNeeded: major), UInt8(minor >> 8), UInt8(truncatingIfNeeded: minor), 0xC5]
    return bytes
}

/// Every HCI event of a capture, as the replay sends them.
func packets(of file: BtsnoopFile) throws -> [HCIPacket] {
    var records = file.records
    var result: [HCIPacket] = []
    while let record = try records.next() {
        guard let event = record.hciEvent else { continue }
        result.append(HCIPacket(event: event, time: record.timestamp.unixMicroseconds))
    }
    return result
}

/// Decodes sealed batches back into wire values.
func decoded(_ batches: [SealedBatch]) throws -> [SightingBatch] {
    try batches.map { try SightingBatch.decode($0.payload) }
}
