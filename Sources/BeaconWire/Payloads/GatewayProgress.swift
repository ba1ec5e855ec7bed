public import BeaconCore

/// How far the aggregator got in one gateway's batch sequence: a line of its snapshot file
/// (`{"v":1,"gw":…,"seq":…,"sent":…}`), so that after a restart the batches between the snapshot
/// and the first one the new process receives are counted, not silently forgotten.
public struct GatewayProgress: WirePayload, Hashable {
    /// The gateway (`"gw"`).
    public var gateway: GatewayID
    /// The highest batch sequence number processed (`"seq"`).
    public var sequence: UInt64
    /// That batch's `sent` time, Unix milliseconds (`"sent"`).
    public var sent: Int64
    /// The edge run that sequence belongs to (`"epoch"`, see ``SightingBatch/epoch``), if known.
    public var epoch: Int64?

    /// Creates a progress record.
    public init(gateway: GatewayID, sequence: UInt64, sent: Int64, epoch: Int64? = nil) {
        self.gateway = gateway
        self.sequence = sequence
        self.sent = sent
        self.epoch = epoch
    }
}

extension GatewayProgress {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("gw", gateway.rawValue)
        root.set("seq", sequence)
        root.set("sent", sent)
        root.setIfPresent("epoch", epoch)
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> GatewayProgress {
        try decoder.read(bytes) { root throws(WireError) in
            GatewayProgress(gateway: try root.gatewayID("gw"), sequence: try root.count("seq"), sent: try root.time("sent"),
                            epoch: try root.optionalTime("epoch"))
        }
    }
}
