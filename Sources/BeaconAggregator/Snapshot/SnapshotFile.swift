import BeaconWire
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    /// Writes the snapshot atomically: a temporary file beside it, flushed to disk, renamed over it.
    static func write(_ contents: Contents, path: String) throws(SnapshotWriteError) {
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
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SnapshotWriteError(step: .create, path: temporary, code: errno) }
        var failure: SnapshotWriteError?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = SnapshotWriteError(step: .write, path: temporary, code: errno)
                    return
                }
                offset += written
            }
        }
        // On disk before the rename: otherwise a power cut can leave the new name on an empty file.
        if failure == nil, fsync(fd) != 0 { failure = SnapshotWriteError(step: .flush, path: temporary, code: errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = SnapshotWriteError(step: .rename, path: path, code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }
}
