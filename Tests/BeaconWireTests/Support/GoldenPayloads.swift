/// One realistic example per payload (two where a topic has two shapes), exactly as docs/WIRE.md
/// shows them. Each decodes to the value in ``Fixtures`` and is, minus whitespace, exactly what
/// the encoder writes for that value, so docs/WIRE.md cannot drift from the code.
enum GoldenPayloads {
    /// `beaconnet/sightings/12/gw-12-3a`
    static let sightingBatch = #"""
        {
          "v": 1,
          "gw": "gw-12-3a",
          "seq": 48213,
          "sent": 1732350000000,
          "sightings": [
            { "dev": "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207", "t": 1732349999412, "rssi": -67, "tx": -59 },
            { "dev": "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207", "t": 1732349999514, "rssi": -71, "tx": -59 },
            { "dev": "eu-edd1ebeac04e5defa017-0b1c2d3e4f50", "t": 1732349999630, "rssi": -82, "tx": -62 },
            { "dev": "mac-C4:7C:8D:6A:12:3F", "t": 1732349999877, "rssi": -90, "addr": "C4:7C:8D:6A:12:3F" }
          ]
        }
        """#

    /// `beaconnet/events/12/3/enter`
    static let sectionEnter = #"""
        {
          "v": 1,
          "kind": "enter",
          "scope": "section",
          "dev": "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207",
          "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
          "major": 12,
          "minor": 3,
          "store_name": "Lyon Part-Dieu",
          "section_name": "Household",
          "t": 1732349998870,
          "from_minor": 2,
          "proximity": "near",
          "accuracy": 2.35,
          "confidence": 0.92,
          "seq": 17
        }
        """#

    /// `beaconnet/events/12/exit`
    static let storeExit = #"""
        {
          "v": 1,
          "kind": "exit",
          "scope": "store",
          "dev": "eu-edd1ebeac04e5defa017-0b1c2d3e4f50",
          "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
          "major": 12,
          "store_name": "Lyon Part-Dieu",
          "t": 1732351802115,
          "dwell_ms": 1874300,
          "proximity": "unknown",
          "confidence": 0.85,
          "seq": 4
        }
        """#

    /// `beaconnet/devices/ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207/state` (retained)
    static let deviceState = #"""
        {
          "v": 1,
          "dev": "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207",
          "state": "inside",
          "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
          "major": 12,
          "minor": 3,
          "store_name": "Lyon Part-Dieu",
          "section_name": "Household",
          "since": 1732349801200,
          "store_since": 1732349801200,
          "section_since": 1732349998870,
          "last_seen": 1732350007412,
          "proximity": "near",
          "accuracy": 1.8,
          "confidence": 0.97,
          "seq": 18
        }
        """#

    /// `beaconnet/occupancy/12/3` (retained)
    static let sectionOccupancy = #"""
        { "v": 1, "major": 12, "minor": 3, "name": "Household", "count": 14, "t": 1732350010000 }
        """#

    /// `beaconnet/occupancy/12` (retained)
    static let storeOccupancy = #"""
        { "v": 1, "major": 12, "name": "Lyon Part-Dieu", "count": 187, "t": 1732350010000 }
        """#

    /// `beaconnet/gateways/gw-12-3a/status` (retained)
    static let gatewayOnline = #"""
        {
          "v": 1,
          "gw": "gw-12-3a",
          "state": "online",
          "version": "0.1.0",
          "major": 12,
          "minor": 3,
          "adapter": "hci0",
          "t": 1732350000000,
          "counters": {
            "reports": 1843221,
            "published": 1790562,
            "dropped": 0,
            "malformed": 12,
            "filtered": 52647,
            "buffered": 0
          }
        }
        """#

    /// `beaconnet/gateways/gw-12-3a/status`: the edge's Last Will.
    static let gatewayLastWill = #"""
        { "v": 1, "gw": "gw-12-3a", "state": "offline" }
        """#

    /// `beaconnet/aggregators/agg-eu-1/status` (retained)
    static let aggregatorOnline = #"""
        {
          "v": 1,
          "id": "agg-eu-1",
          "state": "online",
          "version": "0.1.0",
          "t": 1732350010000,
          "stores": "1-250,300",
          "counters": {
            "messages": 918273,
            "batches": 918105,
            "sightings": 45913650,
            "devices": 3120,
            "rejects": { "invalid_json": 1, "out_of_range": 4 },
            "loss": { "gw-12-3a": 2 },
            "restart_gap": { "gw-12-3a": 31 },
            "duplicates": { "gw-12-3a": 3 },
            "seq_anomalies": { "gw-12-3a": 1 },
            "unknown_gateway_statuses": 2,
            "lag_ms": 84,
            "dropped_publishes": 0,
            "offline": { "gw-13-1": 1732349962000 },
            "offline_count": 1
          },
          "snapshot_error": { "reason": "cannot flush /var/lib/beaconnet-aggregator/snapshot.jsonl.tmp: No space left on device", "t": 1732350000000 }
        }
        """#

    /// `beaconnet/rejects/agg-eu-1`
    static let reject = #"""
        {
          "v": 1,
          "topic": "beaconnet/sightings/12/gw-12-3a",
          "reason": "out_of_range",
          "field": "sightings[3].rssi",
          "detail": "sightings[3].rssi: 45 is out of range -127…20 dBm",
          "t": 1732350001210,
          "payload_prefix": "{\"v\":1,\"gw\":\"gw-12-3a\",\"seq\":48214,\"sent\":1732350001000,\"sightings\":[{\"dev\":\"ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207\",\"t\":1732350000412,\"rssi\":-66,\"tx\":-59},"
        }
        """#
}

/// JSON text without the whitespace between tokens (strings untouched): what the encoder writes.
func minified(_ json: String) -> String {
    var out = ""
    var inString = false
    var escaped = false
    for character in json {
        if inString {
            out.append(character)
            if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
        } else if character == "\"" {
            inString = true
            out.append(character)
        } else if !character.isWhitespace {
            out.append(character)
        }
    }
    return out
}
