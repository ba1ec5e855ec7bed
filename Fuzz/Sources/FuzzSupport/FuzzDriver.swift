import CLibFuzzer
import Glibc

/// The signature libFuzzer calls with each input: its bytes (nil when empty) and their count.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// Runs libFuzzer with this process's command line (`-max_total_time=60 corpus/ seeds/`, …) on
/// `testOneInput`, then exits with libFuzzer's status: 0 when the run ended without a finding.
public func runFuzzer(_ testOneInput: FuzzTestOneInput) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

/// One input as raw bytes; libFuzzer passes a null pointer for the empty input.
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
}

/// Stops the run on a broken property: libFuzzer sees the crash, saves the input and fails.
/// A trap rather than an exception, so the message names the property that failed.
public func violated(_ property: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz property violated: \(property)", file: file, line: line)
}
