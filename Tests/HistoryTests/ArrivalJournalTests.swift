import BeaconMQTT
@testable import BeaconHistory
import Foundation
import Logging
import TestSupport
import Testing

/// The arrival journal on real files: what a killed recorder leaves is read back in order,
/// what was written to the database is dropped, an incomplete record at the end is ignored,
/// and two recorders cannot share one file.
@Suite("History: the arrival journal")
struct ArrivalJournalTests {
    static let logger = Logger(label: "test.journal")

    static let messages = [
        MQTTMessage(topic: "beaconnet/events/101/enter", payload: Array(#"{"seq":1}"#.utf8)),
        MQTTMessage(topic: "beaconnet/state/ib-x", payload: [0, 1, 2, 255, 0]),
        MQTTMessage(topic: "beaconnet/state/ib-y", payload: []),
    ]

    static func file(_ name: String) throws -> String {
        try TestDirectory.make("journal-\(name)").appendingPathComponent("history.sqlite.arrivals").path
    }

    /// The messages `journal` gave back, as comparable text.
    static func shown(_ messages: [MQTTMessage]) -> [String] { messages.map { "\($0.topic) \($0.payload)" } }

    @Test("what was appended and not discarded is read back, in order, byte for byte")
    func readBack() throws {
        let path = try Self.file("read-back")
        do {
            let journal = try ArrivalJournal(path: path, logger: Self.logger)
            #expect(journal.takeRecovered().isEmpty && journal.nextNumber == 1)
            for message in Self.messages { journal.append(message) }
            #expect(journal.count == 3 && journal.nextNumber == 4)
        }
        let reopened = try ArrivalJournal(path: path, logger: Self.logger)
        #expect(Self.shown(reopened.takeRecovered()) == Self.shown(Self.messages))
        #expect(reopened.takeRecovered().isEmpty, "taken once")
        #expect(reopened.count == 3, "the records read back stay until written")
    }

    @Test("discarding forgets the records before a number, in the file too: a restart applies only what was not written")
    func discard() throws {
        let path = try Self.file("discard")
        let size = { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }
        do {
            let journal = try ArrivalJournal(path: path, logger: Self.logger)
            for message in Self.messages.prefix(2) { journal.append(message) }
            journal.discard(before: 2)
            #expect(journal.count == 1 && journal.nextNumber == 3)
            #expect(journal.append(Self.messages[2]) == 3)
            journal.discard(before: 1)
            #expect(journal.count == 2, "an earlier number forgets nothing")
        }
        // The written record left the file at once: only the two unwritten come back.
        let reopened = try ArrivalJournal(path: path, logger: Self.logger)
        #expect(Self.shown(reopened.takeRecovered()) == Self.shown(Array(Self.messages.dropFirst())))
        reopened.discard(before: reopened.nextNumber)
        #expect(reopened.count == 0)
        #expect(size() == ArrivalJournal.magic.count, "nothing unwritten: cut to its header")
        // A long run of written records before a short unwritten one: rewritten without them.
        let big = MQTTMessage(topic: "beaconnet/state/ib-z", payload: [UInt8](repeating: 7, count: 70_000))
        reopened.append(big)
        reopened.append(Self.messages[0])
        reopened.discard(before: reopened.nextNumber - 1)
        #expect(size() == ArrivalJournal.magic.count + ArrivalJournal.encode(Self.messages[0]).count)
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
    }

    @Test("an incomplete record at the end is ignored; the whole ones before it are read")
    func incompleteEnd() throws {
        let path = try Self.file("incomplete")
        var bytes = Self.messages.flatMap(ArrivalJournal.encode)
        let whole = bytes.count
        bytes += ArrivalJournal.encode(MQTTMessage(topic: "beaconnet/events/101/exit", payload: Array("{}".utf8))).prefix(9)
        try Data(ArrivalJournal.magic + bytes).write(to: URL(fileURLWithPath: path))
        let journal = try ArrivalJournal(path: path, logger: Self.logger)
        #expect(Self.shown(journal.takeRecovered()) == Self.shown(Self.messages))
        #expect(ArrivalJournal.decode(bytes).ignored == bytes.count - whole)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == ArrivalJournal.magic.count + whole, "the torn end cut off")
    }

    @Test("a second recorder on the same file is refused, saying so; a directory that is not there is said")
    func refusals() throws {
        let path = try Self.file("locked")
        let first = try ArrivalJournal(path: path, logger: Self.logger)
        #expect(throws: ArrivalJournalError.inUse(path: path)) { try ArrivalJournal(path: path, logger: Self.logger) }
        first.append(Self.messages[0])
        first.discard(before: 2)
        #expect(throws: ArrivalJournalError.inUse(path: path), "still locked after the file was rewritten") {
            try ArrivalJournal(path: path, logger: Self.logger)
        }
        let nowhere = path + "-gone/journal"
        #expect(throws: ArrivalJournalError.cannotOpen(path: nowhere, reason: "No such file or directory")) {
            try ArrivalJournal(path: nowhere, logger: Self.logger)
        }
        #expect(ArrivalJournalError.inUse(path: path).description.contains("give each recorder its own --journal"))
    }

    @Test("a file that is not a journal (a database named by mistake) is refused and left as it was")
    func notAJournal() throws {
        let path = try Self.file("not-a-journal")
        let contents = Data("SQLite format 3\u{0}and the rest of a database".utf8)
        try contents.write(to: URL(fileURLWithPath: path))
        #expect(throws: ArrivalJournalError.notAJournal(path: path)) { try ArrivalJournal(path: path, logger: Self.logger) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }
}
