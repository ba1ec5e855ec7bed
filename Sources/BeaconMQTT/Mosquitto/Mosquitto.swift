import CMosquitto
import Foundation
import Synchronization

/// Process-wide libmosquitto setup and the small conversions every file needs.
enum Mosquitto {
    /// `mosquitto_lib_init()` runs once, the first time a client is made (a `static let` is
    /// initialised exactly once, thread-safely). `mosquitto_lib_cleanup()` is never called: it
    /// would break clients still alive, and the process exit frees what it would.
    static let initialised: Bool = {
        mosquitto_lib_init() == success
    }()

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)

    /// The largest payload MQTT can carry (the remaining length field is 4 bytes of 7 bits).
    static let maximumPayload = 268_435_455

    /// `mosquitto_strerror` as a Swift string.
    static func errorText(_ code: Int32) -> String {
        String(cString: mosquitto_strerror(code))
    }

    /// The text for an MQTT v5 reason code.
    static func reasonText(_ code: Int32) -> String {
        String(cString: mosquitto_reason_string(code))
    }

    /// The text for an MQTT 3.1.1 CONNACK return code.
    static func connackText(_ code: Int32) -> String {
        String(cString: mosquitto_connack_string(code))
    }
}

extension Int32 {
    /// Compares a libmosquitto return code with a `mosq_err_t` case.
    static func == (lhs: Int32, rhs: mosq_err_t) -> Bool { lhs == Int32(rhs.rawValue) }
    static func != (lhs: Int32, rhs: mosq_err_t) -> Bool { lhs != Int32(rhs.rawValue) }
}

extension Duration {
    /// Whole seconds, rounded up, clamped to `floor...ceiling`: libmosquitto counts seconds.
    func wholeSeconds(floor: Int = 0, ceiling: Int = Int(Int32.max)) -> Int {
        let (seconds, attoseconds) = components
        let rounded = attoseconds > 0 ? seconds + 1 : seconds
        return Int(Swift.min(Swift.max(rounded, Int64(floor)), Int64(ceiling)))
    }

    /// The duration as a Dispatch interval, for timers on Dispatch queues.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if nanoseconds.overflow { return .never }
        return .nanoseconds(Int(nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}

/// Calls `body` with a `char **` of C copies of `strings` (what `mosquitto_subscribe_multiple`
/// takes), freed when `body` returns.
func withCStringArray<R>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>, Int32) -> R
) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress!, Int32($0.count)) }
}

/// A continuation that the first of several racing callbacks resumes; later ones do nothing.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(returning value: T) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
