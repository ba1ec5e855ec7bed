import BeaconCore

/// Everything BeaconCore reads from one HCI event (from its Event_Code on, or with the H4 type
/// byte): the report walk, every AD structure and typed field, the beacon frames, the device key
/// and the summary, with the invariants a gateway needs from hostile radio traffic: no trap,
/// every offset and slice inside the input, the index-only frame search agreeing with the walk,
/// every generated device id valid.
public func walkEvent(_ packet: ArraySlice<UInt8>, h4: Bool) {
    let event: HCIEvent
    do throws(HCIParseError) {
        event = h4 ? try HCIEvent(h4Packet: packet) : try HCIEvent(packet)
    } catch {
        guard error.offset >= 0, error.offset <= packet.count else { violated("error offset outside the packet: \(error)") }
        return
    }
    var reports = event.advertisingReports()
    do throws(HCIParseError) {
        while let report = try reports.next() {
            guard report.data.startIndex >= packet.startIndex, report.data.endIndex <= packet.endIndex,
                report.offset >= 0, report.offset < packet.count
            else { violated("report outside the packet: offset \(report.offset), data \(report.data.indices)") }
            walkAdvertisingData(report.data)
            if let key = report.deviceKey(frame: report.keyBeaconFrame) {
                guard (try? DeviceID(key.deviceID.rawValue)) != nil else { violated("invalid device id \(key)") }
            }
            _ = (report.isConnectable, report.isScannable, report.isDirected, report.dataStatus)
        }
    } catch {
        guard error.offset >= 0, error.offset <= packet.count else { violated("error offset outside the packet: \(error)") }
    }
}

/// The AD walk, the typed fields and the frame decoders over one report's data.
public func walkAdvertisingData(_ bytes: ArraySlice<UInt8>) {
    let data = AdvertisingData(bytes)
    for structure in data {
        guard structure.offset >= 0, structure.offset < bytes.count,
            structure.value.startIndex >= bytes.startIndex, structure.value.endIndex <= bytes.endIndex
        else { violated("AD structure outside the data at \(structure.offset)") }
        _ = structure.manufacturerData
        _ = structure.serviceData
        _ = structure.serviceUUIDs.map(\.uuidString)
        _ = structure.localName
        _ = structure.txPowerLevel
    }
    if let malformation = data.malformation, malformation.offset >= bytes.count {
        violated("malformation offset \(malformation.offset) outside \(bytes.count) bytes")
    }
    let frames = Array(data.beaconFrames)
    guard data.firstBeaconFrame == frames.first else { violated("the index-only frame search disagrees with the walk") }
    for frame in frames {
        _ = frame.powerAt1m
        if case .eddystoneURL(let url) = frame { _ = url.url }
        if let key = frame.deviceKey, (try? DeviceID(key.deviceID.rawValue)) == nil { violated("invalid device id \(key)") }
    }
    _ = AdvertisementSummary(data)
}
