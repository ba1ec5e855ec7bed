import BeaconCore

/// Decode → filter → batch for one stream of HCI events: the whole per-report path of the edge,
/// as a value with no I/O. The live scanner and the replay both feed it (through
/// ``SightingPipelineService``); benchmarks and tests drive it directly.
public struct ReportPipeline: Sendable {
    /// Which reports become sightings.
    public let allowList: AllowList
    /// The windows and sequence numbers.
    public var batcher: Batcher
    /// Counts since the last ``takeCounts()``.
    public private(set) var counts = PipelineCounts()

    /// Makes a pipeline.
    public init(allowList: AllowList, batcher: Batcher) {
        self.allowList = allowList
        self.batcher = batcher
    }

    /// Processes one source item; sealed batches go to `emit`, in order.
    @inline(__always)
    public mutating func consume(_ item: SourceItem, sealed emit: (SealedBatch) -> Void) {
        switch item {
        case .packet(let packet): consume(packet, sealed: emit)
        case .clock(let time): batcher.advance(to: time, sealed: emit)
        }
    }

    /// Decodes every advertising report of one event and batches the allowed ones. A malformed
    /// event or report is counted and skipped; the reports before it in the event still count.
    public mutating func consume(_ packet: HCIPacket, sealed emit: (SealedBatch) -> Void) {
        batcher.advance(to: packet.time, sealed: emit)
        // Only LE Meta events carry reports: skip the rest on their code byte, before parsing.
        guard packet.event.first == HCIEvent.leMetaEventCode else { return }
        let event: HCIEvent
        do {
            event = try HCIEvent(packet.event)
        } catch {
            counts.malformed += 1
            return
        }
        guard event.leSubeventCode != nil else { return }
        var reports = event.advertisingReports()
        do {
            while let report = try reports.next() {
                counts.reports += 1
                let frame = report.firstBeaconFrame
                if frame == nil, AdvertisingData(report.data).malformation != nil {
                    counts.malformed += 1
                    continue
                }
                guard let rssi = report.rssi, let key = report.deviceKey(frame: frame), allowList.admits(key) else {
                    counts.filtered += 1
                    continue
                }
                counts.sightings += 1
                batcher.add(
                    key, time: packet.time, rssi: rssi, txPower: frame?.powerAt1m, address: report.address,
                    sealed: emit)
            }
        } catch {
            counts.malformed += 1
        }
    }

    /// Seals the open window (end of the source).
    public mutating func finish(sealed emit: (SealedBatch) -> Void) {
        batcher.finish(sealed: emit)
    }

    /// The counts so far, zeroing them.
    public mutating func takeCounts() -> PipelineCounts {
        defer { counts = PipelineCounts() }
        return counts
    }
}
