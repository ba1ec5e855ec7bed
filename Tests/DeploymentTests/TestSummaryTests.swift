import BrokerHarness
import Foundation
import TestSupport
import Testing

/// `deploy/scripts/test-summary.sh`, which sums up each phase of test.sh, on Swift Testing's own
/// output (as 6.3 prints it): a skipped test is counted as skipped with its reason, never as
/// passed, though Swift Testing's last line counts it among the tests run.
@Suite("deploy/scripts/test-summary.sh", .hangLimit)
struct TestSummaryTests {
    static let script = TestPaths.inPackage("deploy/scripts/test-summary.sh").path

    /// A run of a suite skipped for want of test data, a test skipped on its own, a test that
    /// passed and a parameterized one with a failing case.
    static let mixed = """
        ◇ Test run started.
        ↳ Testing Library Version: 6.3.1 (937120cbc281cf2)
        ◇ Suite "Mixed" started.
        ➜ Suite "Skipped suite" skipped: "no ../shared/testdata"
        ◇ Test "fails" started.
        ◇ Test "passes" started.
        ➜ Test "skips alone" skipped: "beacon-edge not built"
        ➜ Test "two" skipped: "no ../shared/testdata"
        ➜ Test "one" skipped: "no ../shared/testdata"
        ◇ Test case passing 1 argument x → 1 to "fails" started.
        ✘ Test "fails" recorded an issue with 1 argument x → 2 at T.swift:10:60: Expectation failed: (x → 2) == 1
        ✘ Test "fails" with 2 test cases failed after 0.001 seconds with 1 issue.
        ✔ Test passes() passed after 0.001 seconds.
        ✘ Suite "Mixed" failed after 0.001 seconds with 1 issue.
        ✘ Test run with 5 tests in 2 suites failed after 0.001 seconds with 1 issue.

        """

    /// The live-scan suite where qemu is missing: every test skipped, and the run "passed".
    static let allSkipped = """
        ◇ Test run started.
        ➜ Suite "Live scan under Linux in qemu" skipped: "live-scan: cannot run here: no qemu-system-x86_64 (apt-get install qemu-system-x86)"
        ➜ Test "what the edge publishes from the live socket is what decode prints" skipped: "live-scan: cannot run here: no qemu-system-x86_64 (apt-get install qemu-system-x86)"
        ➜ Test kernelLog() skipped: "live-scan: cannot run here: no qemu-system-x86_64 (apt-get install qemu-system-x86)"
        ✔ Test run with 2 tests in 1 suite passed after 0.001 seconds.

        """

    /// The summary's lines for `log` and swift test's exit status `code`.
    static func summary(_ log: String, code: Int32) async throws -> [String] {
        let directory = try TestDirectory.make("test-summary")
        let input = directory.appendingPathComponent("swift-test.log").path
        try log.write(toFile: input, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("summary").path
        try await runCommand("/bin/bash", [script, input, "\(code)"], output: output)
        return try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("passed, failed and skipped are counted per test, the skips grouped by reason")
    func counts() async throws {
        let lines = try await Self.summary(Self.mixed, code: 1)
        #expect(lines == [
            "FAILED (exit 1): 1 passed, 1 failed, 3 skipped",
            "2 skipped: no ../shared/testdata",
            "1 skipped: beacon-edge not built",
        ])
    }

    @Test("a phase whose tests were all skipped says skipped and why, not passed")
    func allSkipped() async throws {
        let lines = try await Self.summary(Self.allSkipped, code: 0)
        #expect(lines == [
            "skipped: 0 passed, 0 failed, 2 skipped",
            "2 skipped: live-scan: cannot run here: no qemu-system-x86_64 (apt-get install qemu-system-x86)",
        ])
    }

    @Test("a run that ended before Swift Testing's last line fails and says so")
    func endedEarly() async throws {
        let cut = Self.mixed.components(separatedBy: "✔ Test passes()").first ?? ""
        let lines = try await Self.summary(cut, code: 139)
        #expect(lines == ["FAILED (exit 139): 0 passed, 1 failed, 3 skipped; no Swift Testing result (the run ended early)", "2 skipped: no ../shared/testdata", "1 skipped: beacon-edge not built"])
    }

    @Test("a run that passed everything, one test with a known issue")
    func allPassed() async throws {
        let passed = """
            ✔ Test passes() passed after 0.001 seconds.
            ✔ Test "parameterized" with 2 test cases passed after 0.002 seconds.
            ━ Test "broker outage, in a replay" recorded a known issue at DeploymentScenarioTests.swift:141:13: Expectation failed
            ━ Test "broker outage, in a replay" passed after 40.673 seconds with 1 known issue.
            ━ Test run with 3 tests in 1 suite passed after 40.673 seconds with 1 known issue.

            """
        #expect(try await Self.summary(passed, code: 0) == ["passed: 3 passed, 0 failed, 0 skipped"])
    }
}
