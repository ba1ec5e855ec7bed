import BeaconCore
@testable import BeaconHistory
import BeaconMQTT
import BeaconWire
import Logging
import Testing
import TestSupport

/// The recorder between the broker and the database: bad messages are counted and ignored, good
/// ones become visits, one transaction per flush.
@Suite struct RecorderTests {
    static func recorder() throws -> HistoryRecorder {
        let path = try TestDirectory.make("history-recorder").appendingPathComponent("h.sqlite").path
        let database = try SQLiteHistoryDatabase(path: path, deviceKeys: "raw", secretFingerprint: nil)
        return HistoryRecorder(
            book: VisitBook(keying: .rawIdentifiers), database: database, scheme: .standard, logger: Logger(label: "test"))
    }

    static func message(_ topic: Topic, _ payload: some WirePayload) -> MQTTMessage {
        MQTTMessage(topic: TopicScheme.standard.string(for: topic), payload: payload.encoded(), qos: .atLeastOnce)
    }

    @Test func badMessagesAreIgnoredAndGoodOnesRecorded() async throws {
        let recorder = try Self.recorder()
        let time: Int64 = 1_764_151_200_000
        let enter = Wire.enter("a", 101, at: time, seq: 1)
        // Malformed JSON, an event filed under another store, a state under another device, a
        // topic that is not BeaconNet's, a cleared retained state: none changes anything.
        recorder.receive(MQTTMessage(topic: "beaconnet/events/101/enter", payload: Array("{\"v\":1,".utf8)))
        recorder.receive(Self.message(.event(.store(102), .enter), enter))
        recorder.receive(Self.message(.deviceState(Wire.device("b")), Wire.state("a", .outside, 101, since: time, seq: 2)))
        recorder.receive(MQTTMessage(topic: "elsewhere/events/101/enter", payload: enter.encoded()))
        recorder.receive(MQTTMessage(topic: "beaconnet/devices/\(Wire.device("a"))/state", payload: []))
        #expect(recorder.pendingCount == 0)
        #expect(recorder.summary.contains("4 messages ignored"), "\(recorder.summary)")
        #expect(recorder.receive(Self.message(enter.topic, enter)) > 0)
        try await recorder.flush()
        #expect(recorder.pendingCount == 0)
        let visits = try await recorder.database.storeVisits(stores: [101], began: time..<(time + 1))
        #expect(visits.map(\.enter) == [time])
        #expect(try await recorder.database.names().stores[101] == "Store 101")
    }

    /// The journal as the network thread and the flushes use it: a message stays until the write
    /// holding its records commits; one received after the flush took its batch stays on.
    @Test func theJournalKeepsWhatIsNotWritten() async throws {
        let directory = try TestDirectory.make("history-recorder-journal")
        let database = try SQLiteHistoryDatabase(path: directory.appendingPathComponent("h.sqlite").path, deviceKeys: "raw", secretFingerprint: nil)
        let journal = try ArrivalJournal(path: directory.appendingPathComponent("h.sqlite.arrivals").path, logger: Logger(label: "test"))
        let recorder = HistoryRecorder(
            book: VisitBook(keying: .rawIdentifiers), database: database, journal: journal, scheme: .standard, logger: Logger(label: "test"))
        let time: Int64 = 1_764_151_200_000
        let messages = (1...3).map { Self.message(.event(.store(101), .enter), Wire.enter("d\($0)", 101, at: time, seq: 1)) }
        for message in messages.prefix(2) {
            journal.append(message)
            recorder.receive(message)
        }
        journal.append(messages[2])
        #expect(journal.count == 3)
        try await recorder.flush()
        #expect(journal.count == 1, "the third is journalled, not yet applied: it stays")
        recorder.receive(messages[2])
        try await recorder.flush()
        #expect(journal.count == 0)
        #expect(try await database.storeVisits(stores: [101], began: time..<(time + 1)).count == 3)
    }
}
