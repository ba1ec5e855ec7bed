import BrokerHarness
import Foundation
import TestSupport

/// Whether a virtual-machine script can run here, for a test's enabling condition: `products`
/// built beside the tests, then the script's own `--check`.
enum VMScriptCheck {
    /// Why `script` cannot run here, or nil when it can.
    static func unavailable(script: String, products: [String]) -> String? {
        let missing = products.filter { BuiltProducts.path($0) == nil }
        guard missing.isEmpty else {
            return "\(missing.joined(separator: ", ")) not built beside the tests (swift build --build-tests)"
        }
        let name = URL(fileURLWithPath: script).lastPathComponent
        guard let directory = try? TestDirectory.make("vm-check") else { return "no scratch directory" }
        let output = directory.appendingPathComponent("check.log").path
        guard let process = try? ChildProcess(executable: "/bin/bash", arguments: [script, "--check"], outputFile: output) else {
            return "cannot start \(script)"
        }
        // A trait's condition is read synchronously; the check reads a few files and exits.
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        let text = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return process.exitStatus == 0 ? nil : text.isEmpty ? "\(name) --check failed" : text
    }
}
