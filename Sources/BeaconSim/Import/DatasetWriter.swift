import BeaconEngine
public import BeaconWire
import Foundation

/// Writes an imported dataset as `beacon-sim import` does: for each run, and for all runs end to
/// end (`all`), a folder with the chain (`chain.json`, what `beacon-aggregator replay --config`
/// reads), the trace (`trace.txt`, `topic payload` lines as edges publish them) and the truth
/// (`truth.jsonl`, docs/TRUTH.md).
public enum DatasetWriter {
    /// The name of the folder holding all runs end to end.
    public static let combinedName = "all"

    /// What was written into one folder.
    public struct Written: Sendable {
        /// The folder's name: the run's, or ``DatasetWriter/combinedName``.
        public var name: String
        /// The folder's path.
        public var directory: String
        /// Its recording: batches, truth, end.
        public var recording: Recording
        /// Where the run's first row lies in the trace, Unix ms (the first run's, for `all`).
        public var start: Int64
        /// How far the run's times were moved to lie where they lie in `all`, ms; nil for `all`.
        public var shift: Int64?
    }

    /// Lays the runs out (each where it lies in the combined recording, `gap` ms after the one
    /// before) and writes every folder under `directory`, replacing files of the same names.
    public static func write(_ dataset: ImportedDataset, to directory: String, gap: Int64, scheme: TopicScheme = .standard) throws -> [Written] {
        let chain = try dataset.chain.resolve()
        let shifts = RecordingLayout.shifts(dataset.runs, gap: gap)
        let chainText = try chainJSON(dataset)
        var written: [Written] = []
        for (run, shift) in zip(dataset.runs, shifts) {
            let recording = RecordingLayout.single(run, shift: shift, chain: chain)
            let folder = try writeFolder(run.name, under: directory, chain: chainText, recording: recording, scheme: scheme)
            written.append(Written(name: run.name, directory: folder, recording: recording, start: run.span.lowerBound + shift, shift: shift))
        }
        let all = RecordingLayout.combined(dataset.runs, gap: gap, chain: chain)
        let folder = try writeFolder(combinedName, under: directory, chain: chainText, recording: all, scheme: scheme)
        written.append(Written(name: combinedName, directory: folder, recording: all, start: dataset.runs[0].span.lowerBound, shift: nil))
        return written
    }

    /// The chain config as JSON, with the dataset's `comment` first.
    public static func chainJSON(_ dataset: ImportedDataset) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let chain = String(decoding: try encoder.encode(dataset.chain), as: UTF8.self)
        let comment = String(decoding: try encoder.encode(dataset.comment), as: UTF8.self)
        // The loader takes a top-level "comment"; the config type has no field for it.
        guard chain.hasPrefix("{\n") else { return chain }
        return "{\n  \"comment\" : \(comment),\n" + chain.dropFirst(2) + "\n"
    }

    /// The trace's lines: one `topic payload` line per batch, as `beacon-sim run --trace` writes.
    public static func traceLines(_ recording: Recording, scheme: TopicScheme) -> [String] {
        recording.batches.map { b in
            let batch = b.sightingBatch
            return scheme.string(for: .sightings(store: b.store, gateway: b.gateway)) + " " + String(decoding: batch.encoded(), as: UTF8.self)
        }
    }

    /// The truth file's lines, the end line last.
    public static func truthLines(_ recording: Recording) -> [String] {
        recording.truth.map(TruthFile.line) + [TruthFile.endLine(recording.end)]
    }

    static func writeFolder(_ name: String, under directory: String, chain: String, recording: Recording, scheme: TopicScheme) throws -> String {
        let folder = (directory as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try chain.write(toFile: (folder as NSString).appendingPathComponent("chain.json"), atomically: true, encoding: .utf8)
        try write(traceLines(recording, scheme: scheme), to: (folder as NSString).appendingPathComponent("trace.txt"))
        try write(truthLines(recording), to: (folder as NSString).appendingPathComponent("truth.jsonl"))
        return folder
    }

    /// Writes lines in chunks: a dataset's trace is tens of megabytes.
    static func write(_ lines: [String], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let out = FileHandle(forWritingAtPath: path) else {
            throw ImportError(file: path, reason: "cannot write it")
        }
        defer { try? out.close() }
        var chunk = ""
        for line in lines {
            chunk += line
            chunk += "\n"
            if chunk.utf8.count > 1 << 20 {
                try out.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try out.write(contentsOf: Data(chunk.utf8))
    }
}
