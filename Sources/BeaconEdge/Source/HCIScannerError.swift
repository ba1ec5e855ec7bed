import Foundation

/// Why the `hci` source cannot scan, each with what to do about it. `errno` is read right after
/// the failing call.
public enum HCIScannerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kernel offers no Bluetooth sockets (`AF_BLUETOOTH`: EAFNOSUPPORT) — no Bluetooth
    /// support loaded, or a container or VM without it.
    case bluetoothUnavailable(adapter: String, errno: Int32)
    /// No adapter of that name (ENODEV).
    case adapterNotFound(adapter: String)
    /// The adapter is down and could not be brought up (`reason` says why).
    case adapterDown(adapter: String, reason: String)
    /// The radio is blocked by rfkill (ERFKILL).
    case blocked(adapter: String)
    /// The process lacks the capability for `operation` (EPERM / EACCES).
    case permissionDenied(adapter: String, operation: String, errno: Int32)
    /// The controller refused `command` with `status`; `detail` says what was tried before.
    case commandFailed(adapter: String, command: String, status: HCIStatus, detail: String?)
    /// The controller did not answer `command` within the time limit.
    case commandTimedOut(adapter: String, command: String)
    /// Any other system call failure.
    case system(adapter: String, operation: String, errno: Int32)

    /// What went wrong and what to do, in one paragraph for the operator.
    public var description: String {
        switch self {
        case .bluetoothUnavailable(let adapter, let code):
            return "cannot open \(adapter): this system has no Bluetooth support (\(Self.text(code))). "
                + "Load it (`modprobe bluetooth`), or run beacon-edge on the gateway itself rather than in a container "
                + "without Bluetooth; to test without a radio use --replay FILE."
        case .adapterNotFound(let adapter):
            return "no Bluetooth adapter named \(adapter). List adapters with `hciconfig -a` or `btmgmt info`, "
                + "check that the dongle is plugged in, and pass the right one with --adapter (or scan.adapter)."
        case .adapterDown(let adapter, let reason):
            return "adapter \(adapter) is down and could not be brought up: \(reason). "
                + "Bring it up with `hciconfig \(adapter) up` (or `bluetoothctl power on`), after `rfkill unblock bluetooth` if it is blocked."
        case .blocked(let adapter):
            return "adapter \(adapter) is blocked by rfkill. Run `rfkill unblock bluetooth`, then `hciconfig \(adapter) up`."
        case .permissionDenied(let adapter, let operation, let code):
            return "permission denied to \(operation) on \(adapter) (\(Self.text(code))). Raw HCI access needs CAP_NET_RAW "
                + "(and CAP_NET_ADMIN to bring the adapter up): run as root, or "
                + "`setcap cap_net_raw,cap_net_admin+eip $(command -v beacon-edge)`, or AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN in the systemd unit."
        case .commandFailed(let adapter, let command, let status, let detail):
            return "adapter \(adapter) refused \(command): \(status)" + (detail.map { "; \($0)" } ?? "")
                + ". Another program may be scanning (stop it, or `btmgmt power off` / `hciconfig \(adapter) reset`)."
        case .commandTimedOut(let adapter, let command):
            return "adapter \(adapter) did not answer \(command) within 2 s; try `hciconfig \(adapter) reset`."
        case .system(let adapter, let operation, let code):
            return "\(operation) on \(adapter) failed: \(Self.text(code))"
        }
    }

    static func text(_ code: Int32) -> String { "\(String(cString: strerror(code))), errno \(code)" }
}
