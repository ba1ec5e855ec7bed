import ArgumentParser
import BeaconCore
import Foundation

extension ExitCode {
    /// The exit code of `status`: every BeaconNet program takes its numbers from ``ExitStatus``.
    init(_ status: ExitStatus) { self.init(status.rawValue) }

    /// The exit code of `status`, after saying `message` on standard error behind the program's
    /// name: an `ExitCode` thrown ends the program without a word of its own.
    init(_ status: ExitStatus, saying message: String) {
        FileHandle.standardError.write(Data("beacon-sim: \(message)\n".utf8))
        self.init(status)
    }
}
