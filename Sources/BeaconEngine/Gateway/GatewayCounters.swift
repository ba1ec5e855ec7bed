public import BeaconCore

/// One gateway's stream as the status topic reports it.
public struct GatewayCounters: Sendable, Equatable {
    /// The gateway.
    public var id: GatewayID
    /// Batches received.
    public var received: UInt64
    /// Batches missing from its sequence, net of late arrivals.
    public var lost: UInt64
    /// Batches missing across this process's restart (see ``GatewayResumePoint``).
    public var restartGap: UInt64
    /// Batches ignored as repeats.
    public var duplicates: UInt64
    /// Sequence anomalies: batches whose `seq` jumped 64 or more away from the gateway's run
    /// without the jump turning out to be batches the edge dropped, edge runs (`epoch`s) that
    /// came and went while the one before went on, and batches with a `seq` already seen but
    /// another `sent` (decided: no repeat).
    public var seqAnomalies: UInt64
    /// Whether it counts as alive at the watermark.
    public var online: Bool
    /// Event time of its last batch, ms; nil before the first.
    public var lastBatch: Int64?
}

/// Where a gateway's sequence stood: the snapshot file keeps it so that a restarted aggregator
/// counts the batches that went missing while it was down.
public struct GatewayResumePoint: Sendable, Equatable {
    /// The gateway.
    public var id: GatewayID
    /// The highest `seq` processed.
    public var seq: UInt64
    /// `sent` of the newest batch processed, ms.
    public var sent: Int64
    /// The edge run (`epoch`), when the edge says.
    public var epoch: Int64?

    public init(id: GatewayID, seq: UInt64, sent: Int64, epoch: Int64?) {
        self.id = id
        self.seq = seq
        self.sent = sent
        self.epoch = epoch
    }
}
