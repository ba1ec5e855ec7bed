import BeaconHistory
import BeaconMQTT
import Logging

/// One run of the writer: every event through ``HistoryRecorder/receive(_:)`` (decode, visit
/// book, pseudonym), a ``HistoryRecorder/flush()`` (one transaction) after every `batch` events.
struct HistoryWriterRun {
    let traffic: VisitTraffic
    let batch: Int

    /// What a run measured.
    struct Figures {
        var events: Int
        var records: Int
        var flushes: Int
        var elapsed: Duration
        var writing: Duration

        /// Records per transaction, on average.
        var recordsPerBatch: Int { max(1, records / max(1, flushes)) }

        func print() {
            let rate = Double(events) / elapsed.seconds
            Swift.print("  writer (decode, visit book, pseudonyms, \(flushes) transactions):  \(formatRate(rate)) events  (\(formatRate(Double(records) / elapsed.seconds)) records; \(records) records, \(Int((writing.seconds / elapsed.seconds * 100).rounded())) % of the time in the database; target ≥ 5 000/s events)")
        }
    }

    /// Runs it on a new database at `location`.
    func measure(_ location: HistoryDatabaseLocation) async throws -> Figures {
        var logger = Logger(label: "beaconnet.bench.history")
        logger.logLevel = .warning
        let secret = try PseudonymSecret(bytes: Array("beacon-bench history, not a real secret".utf8))
        let keying = DeviceKeying.pseudonyms(Pseudonymizer(secret: secret, period: .day))
        let access = HistoryDatabaseAccess.writing(deviceKeys: keying.kindName, secretFingerprint: nil)
        return try await location.withDatabase(access: access, logger: logger) { database in
            let recorder = HistoryRecorder(book: VisitBook(keying: keying), database: database, scheme: .standard, logger: logger)
            let clock = ContinuousClock()
            var figures = Figures(events: traffic.messages.count, records: 0, flushes: 0, elapsed: .zero, writing: .zero)
            let start = clock.now
            for (index, message) in traffic.messages.enumerated() {
                let pending = recorder.receive(message)
                if (index + 1) % batch == 0 || index + 1 == traffic.messages.count {
                    let flushStart = clock.now
                    try await recorder.flush()
                    figures.writing += clock.now - flushStart
                    figures.records += pending
                    figures.flushes += 1
                }
            }
            figures.elapsed = clock.now - start
            return figures
        }
    }
}
