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
    /// Extended adverts split over several reports, until their last part arrives.
    private var fragments = FragmentAssembler()

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
                // Every advert counts once in `reports` and once in exactly one of sightings,
                // filtered and malformed — an extended advert split over several reports too.
                switch fragments.add(report, at: packet.time) {
                case .whole:
                    counts.reports += 1
                    add(report, truncated: false, at: packet.time, sealed: emit)
                case .joined(let data, let truncated):
                    counts.reports += 1
                    var whole = report
                    whole.data = data[...]
                    add(whole, truncated: truncated, at: packet.time, sealed: emit)
                case .pending:
                    break
                case .dropped:
                    counts.reports += 1
                    counts.malformed += 1
                }
                if fragments.abandoned > 0 {
                    let abandoned = UInt64(fragments.takeAbandoned())
                    counts.reports += abandoned
                    counts.malformed += abandoned
                }
            }
        } catch {
            counts.malformed += 1
        }
    }

    /// Keys, filters and batches one whole advert. A truncated one (the controller lost its end)
    /// may end inside an AD structure: that is not malformed, and the structures before it count.
    @inline(__always)
    private mutating func add(_ report: AdvertisingReport, truncated: Bool, at time: Int64, sealed emit: (SealedBatch) -> Void) {
        let frame = report.keyBeaconFrame
        if frame == nil, !truncated, AdvertisingData(report.data).malformation != nil {
            counts.malformed += 1
            return
        }
        guard let rssi = report.rssi, let key = report.deviceKey(frame: frame), allowList.admits(key) else {
            counts.filtered += 1
            return
        }
        counts.sightings += 1
        batcher.add(key, time: time, rssi: rssi, txPower: frame?.powerAt1m, address: report.address, sealed: emit)
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
