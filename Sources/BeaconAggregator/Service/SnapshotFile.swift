import BeaconWire
import Foundation

/// The snapshot file: one retained-state payload (`DeviceState` JSON) per line, written atomically
/// (temporary file, then rename), so a `kill -9` mid-write leaves the previous snapshot whole.
enum SnapshotFile {
    /// Reads the states; a line that does not decode is reported and skipped.
    static func read(path: String, problem: (String) -> Void) -> [DeviceState] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var states: [DeviceState] = []
        for (n, line) in data.split(separator: 0x0A).enumerated() where !line.isEmpty {
            do {
                states.append(try DeviceState.decode(Array(line)))
            } catch {
                problem("\(path):\(n + 1): \(error); line skipped")
            }
        }
        return states
    }

    /// Writes the states atomically.
    static func write(_ states: [DeviceState], path: String) throws {
        var bytes: [UInt8] = []
        for state in states {
            bytes += state.encoded()
            bytes.append(0x0A)
        }
        let temporary = path + ".tmp"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        if rename(temporary, path) != 0 {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    }

    /// Per device, the state with the highest sequence number.
    static func newest(_ lists: [DeviceState]...) -> [DeviceState] {
        var best: [String: DeviceState] = [:]
        for list in lists {
            for state in list where (best[state.device.rawValue]?.sequence ?? 0) <= state.sequence {
                best[state.device.rawValue] = state
            }
        }
        return best.keys.sorted().map { best[$0]! }
    }
}
