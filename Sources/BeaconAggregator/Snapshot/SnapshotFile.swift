import BeaconWire
import Foundation

/// The snapshot file: one retained-state payload (`DeviceState` JSON) per line, then one
/// `GatewayProgress` line per gateway heard, written atomically (temporary file, flushed to disk,
/// then renamed), so a `kill -9` or a power cut mid-write leaves the previous snapshot whole.
enum SnapshotFile {
    /// What a snapshot holds.
    struct Contents {
        var states: [DeviceState] = []
        var gateways: [GatewayProgress] = []
    }

    /// Reads the snapshot; a line that does not decode is reported and skipped.
    static func read(path: String, problem: (String) -> Void) -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else { return Contents() }
        var contents = Contents()
        for (n, line) in data.split(separator: 0x0A).enumerated() where !line.isEmpty {
            do {
                contents.states.append(try DeviceState.decode(Array(line)))
            } catch {
                if let progress = try? GatewayProgress.decode(Array(line)) {
                    contents.gateways.append(progress)
                } else {
                    problem("\(path):\(n + 1): neither a device state (\(error)) nor a gateway's progress; line skipped")
                }
            }
        }
        return contents
    }

    /// Writes the snapshot atomically.
    static func write(_ contents: Contents, path: String) throws {
        var bytes: [UInt8] = []
        for state in contents.states {
            bytes += state.encoded()
            bytes.append(0x0A)
        }
        for progress in contents.gateways {
            bytes += progress.encoded()
            bytes.append(0x0A)
        }
        let temporary = path + ".tmp"
        let url = URL(fileURLWithPath: temporary)
        do {
            try Data(bytes).write(to: url)
            // On disk before the rename: otherwise a power cut can leave the new name on an empty file.
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.synchronize()
            if rename(temporary, path) != 0 {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
