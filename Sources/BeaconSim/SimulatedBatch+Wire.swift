public import BeaconWire

extension SimulatedBatch {
    /// The batch as the gateway's edge publishes it (`SightingBatch`, to encode onto the wire).
    public var sightingBatch: SightingBatch {
        SightingBatch(gateway: gateway, sequence: seq, sent: sent, sightings: sightings.map {
            Sighting(device: $0.device, time: $0.time, rssi: $0.rssi, txPower: $0.measuredPower)
        })
    }
}
