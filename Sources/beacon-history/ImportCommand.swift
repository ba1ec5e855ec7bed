import ArgumentParser
import BeaconCommandLine
import BeaconHistory
import BeaconMQTT
import BeaconWire
import Foundation
import Logging

/// `beacon-history import`: the visits of a recording of events and device states ('topic payload'
/// lines, as `mosquitto_sub -v`, `beacon-aggregator replay` and `beacon-sim day` write them), kept
/// exactly as `run` keeps what the broker delivers — to fill a database from a recording.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Keep the visits of a recording of events and device states in the database.",
        discussion: """
            Each line is 'topic payload'; lines about other topics (occupancy, layouts, statuses) are \
            skipped, and a malformed line is counted and named on standard error without stopping the \
            import. Visits are kept as run keeps them — de-duplicated by (dev, major, seq), so importing \
            the same recording twice adds nothing. Exits 65 when the file cannot be read or holds no \
            event or state; a database that cannot be opened exits 78 as for run.
            """)

    @Argument(help: "The recording: 'topic payload' lines.")
    var recording: String

    @Option(help: "Topic root (as the aggregators').")
    var topicRoot = "beaconnet"

    /// Where and how the visits are kept.
    @OptionGroup(title: "Storage")
    var storage: StorageOptions

    @OptionGroup
    var logging: LoggingOptions

    func validate() throws {
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
        try storage.validate()
    }

    func run() async throws {
        logging.bootstrap()
        let logger = Logger(label: "beaconnet.history")
        guard let data = FileManager.default.contents(atPath: recording) else {
            throw ExitCode(.dataError, saying: FileProblem.cannotRead(recording))
        }
        let keying = try storage.keying()
        let book = VisitBook(keying: keying, limits: storage.limits)
        let scheme = try TopicScheme(root: topicRoot)
        let summary = try await storage.database.withDatabase(access: storage.access(keying: keying), logger: logger) { database in
            try await Self.keep(data, from: recording, book: book, database: database, scheme: scheme, logger: logger)
        }
        print("beacon-history import: \(summary); database \(try storage.database.location().description)")
    }

    /// Applies every line of `data` through a recorder over `database` (taking back the visits
    /// it holds open first), writing in batches; what the recorder did, as a line.
    static func keep(_ data: Data, from recording: String, book: VisitBook, database: any HistoryDatabase, scheme: TopicScheme,
                     logger: Logger) async throws -> String {
        var book = book
        do { book.restore(try await database.openVisits()) } catch {
            throw ExitCode(DatabaseOptions.status(of: error), saying: "\(error)")
        }
        let recorder = HistoryRecorder(book: book, database: database, scheme: scheme, logger: logger)
        var lines = 0, malformed = 0
        for (index, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")) else {
                malformed += 1
                if malformed <= 10 { StandardError.write("\(recording):\(index + 1): not 'topic payload'\n") }
                continue
            }
            lines += 1
            let message = MQTTMessage(topic: String(decoding: line[..<space], as: UTF8.self), payload: Array(line[line.index(after: space)...]))
            if recorder.receive(message) >= batchSize { try await flush(recorder) }
        }
        recorder.closeStale()
        try await flush(recorder)
        guard recorder.applied > 0 else {
            throw ExitCode(.dataError, saying: "\(recording): no event or device state in it")
        }
        return "\(lines) messages from \(recording)\(malformed > 0 ? " (\(malformed) lines not 'topic payload')" : ""): \(recorder.summary)"
    }

    /// Records written per transaction.
    static let batchSize = 5_000

    private static func flush(_ recorder: HistoryRecorder) async throws {
        do { try await recorder.flush() } catch {
            throw ExitCode(DatabaseOptions.status(of: error), saying: "\(error)")
        }
    }
}
