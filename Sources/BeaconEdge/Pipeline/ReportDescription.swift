public import BeaconCore

/// One advertising report as `beacon-edge decode` prints it: a JSON object with the time, the
/// advertiser, the signal and what the advert is.
///
/// Fields: `t` (Unix ms), `addr`, `addr_type`, `rssi` (absent when the controller had none),
/// `event_type`, `kind` — `ibeacon`, `eddystone-uid`, `eddystone-url`, `eddystone-tlm`,
/// `altbeacon` or `other` — then per kind: iBeacon `uuid` (uppercase with dashes), `major`,
/// `minor`, `tx` (measured power at 1 m); Eddystone-UID `namespace`, `instance`, `tx` (at 0 m);
/// Eddystone-URL `url`, `tx`; Eddystone-TLM `battery_mv`, `temp_c`, `adv_count`, `uptime_s`;
/// AltBeacon `id1`, `id2`, `id3`, `tx` (reference RSSI), `mfg`. `dev` is the device id when the
/// report has one, `extended` is true for extended reports, `data_status` (`more_to_come`,
/// `truncated`) marks one part of an extended advert split over several reports, `malformed` names
/// an AD structure that runs past the data. `kind` describes the frame the report is keyed by: the
/// first with an identity, else the first.
public enum ReportDescription {
    /// The JSON object for `report`, heard at `time` (µs since the epoch).
    public static func json(_ report: AdvertisingReport, time: Int64) -> JSONValue {
        var fields: [(key: String, value: JSONValue)] = [
            ("t", .int(time >= 0 ? time / 1000 : (time - 999) / 1000)),
            ("addr", .string(report.address.description)),
            ("addr_type", .string(report.addressType.description)),
        ]
        if let rssi = report.rssi { fields.append(("rssi", .int(Int64(rssi)))) }
        fields.append(("event_type", .int(Int64(report.eventType))))
        if report.isExtended { fields.append(("extended", .bool(true))) }
        switch report.dataStatus {
        case .complete: break
        // One part of an advert split over several reports (the edge joins them; decode shows them as heard).
        case .incompleteMoreToCome: fields.append(("data_status", .string("more_to_come")))
        case .incompleteTruncated: fields.append(("data_status", .string("truncated")))
        }
        let frame = report.keyBeaconFrame
        switch frame {
        case .iBeacon(let f):
            fields += [
                ("kind", .string("ibeacon")), ("uuid", .string(f.uuid.uuidString)), ("major", .int(Int64(f.major))),
                ("minor", .int(Int64(f.minor))), ("tx", .int(Int64(f.measuredPower))),
            ]
        case .eddystoneUID(let f):
            fields += [
                ("kind", .string("eddystone-uid")), ("namespace", .string(f.namespace.description)),
                ("instance", .string(f.instance.description)), ("tx", .int(Int64(f.txPowerAt0m))),
            ]
        case .eddystoneURL(let f):
            fields += [("kind", .string("eddystone-url")), ("url", .string(f.url)), ("tx", .int(Int64(f.txPowerAt0m)))]
        case .eddystoneTLM(let f):
            fields.append(("kind", .string("eddystone-tlm")))
            if let mv = f.batteryMillivolts { fields.append(("battery_mv", .int(Int64(mv)))) }
            if let celsius = f.temperatureCelsius { fields.append(("temp_c", .double(celsius))) }
            fields += [
                ("adv_count", .int(Int64(f.advertisingCount))),
                ("uptime_s", .double(Double(f.uptimeDeciseconds) / 10)),
            ]
        case .altBeacon(let f):
            fields += [
                ("kind", .string("altbeacon")), ("id1", .string(f.id1.uuidString)), ("id2", .int(Int64(f.id2))),
                ("id3", .int(Int64(f.id3))), ("tx", .int(Int64(f.referenceRSSI))), ("mfg", .int(Int64(f.manufacturerID))),
            ]
        case .eddystoneOther(let f):
            fields += [("kind", .string("other")), ("eddystone_frame", .int(Int64(f.frameType)))]
        case nil:
            fields.append(("kind", .string("other")))
        }
        if let key = report.deviceKey(frame: frame) { fields.append(("dev", .string(key.description))) }
        if frame == nil, let malformation = AdvertisingData(report.data).malformation {
            fields.append(("malformed", .string(malformation.description)))
        }
        return .object(fields)
    }
}
