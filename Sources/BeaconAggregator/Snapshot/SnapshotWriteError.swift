#if canImport(Glibc)
import Glibc
#endif

/// A snapshot file that could not be written. The previous snapshot stays whole (the new one is
/// written beside it and renamed over it only once it is on disk); the status topic reports the
/// failure as `snapshot_error` until a write succeeds.
struct SnapshotWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the write was doing when it failed.
    enum Step: String, Sendable {
        /// Creating the temporary file beside the snapshot.
        case create
        /// Writing the states into it.
        case write
        /// Flushing it to disk.
        case flush
        /// Renaming it over the snapshot.
        case rename
    }

    /// The step that failed.
    let step: Step
    /// The file it failed on.
    let path: String
    /// `errno` right after the failing call.
    let code: Int32

    var description: String { "cannot \(step.rawValue) \(path): \(String(cString: strerror(code)))" }
}
