extension LinkTable {
    /// The street test's evidence about the device on `track` in `store` at `time`
    /// (``StreetTest/evidence(model:section:fresh:missed:insideCutoff:)``): from its fresh links
    /// in the store and the store's gateways that missed it; `section` (global), when in the
    /// store, is tried first.
    func streetEvidence(_ track: Int, in store: Int, at time: EventTime, section: Int?, localIndex: [Int32], gateways: GatewayBook,
                        model: StreetModel, cutoff: Double) -> Double? {
        withUnsafeTemporaryAllocation(of: FreshLink.self, capacity: LinkTable.maxLinks) { buffer in
            let n = freshLinks(track, in: store, at: time, localIndex: localIndex, into: buffer)
            let fresh = UnsafeBufferPointer(rebasing: buffer[..<n])
            return withUnsafeTemporaryAllocation(of: MissedGateway.self, capacity: model.gateways.count) { scratch in
                // Gateways of the store that have not heard it lately: each says "too weak here".
                let m = missedGateways(track, of: model.gateways, fresh: fresh, at: time, gateways: gateways, into: scratch)
                return StreetTest.evidence(model: model, section: section.flatMap { model.sections.local[$0] },
                                           fresh: fresh, missed: UnsafeBufferPointer(rebasing: scratch[..<m]), insideCutoff: cutoff)
            }
        }
    }
}
