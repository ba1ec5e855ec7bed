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
        func failure(_ what: String) -> CocoaError {
            CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(errno)))"])
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        let ok = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            // On disk before the rename: otherwise a power cut can leave the new name on an empty file.
            return fsync(fd) == 0
        }
        let error = ok ? nil : failure("cannot write \(temporary)")
        close(fd)
        if let error {
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let error = failure("cannot rename \(temporary)")
            unlink(temporary)
            throw error
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
