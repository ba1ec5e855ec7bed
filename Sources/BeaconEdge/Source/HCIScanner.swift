import BeaconCore
import CBlueZ
import Foundation
public import Logging
import Synchronization

/// A passive LE scan on a BlueZ adapter through a raw HCI socket (libbluetooth).
///
/// ``open(adapter:scan:logger:)`` finds the adapter (bringing it up if it is down and we may),
/// saves the socket's event filter and installs one for LE Meta, Command Complete and Command
/// Status events, and starts a passive scan without duplicate filtering — with the legacy
/// commands, or the extended ones where the controller disallows the legacy ones. Then
/// ``read(into:)`` blocks a thread of its own in a `poll`/`read` loop until ``stop()``, and on the
/// way out disables the scan, restores the saved filter and closes the socket.
///
/// Every blocking call runs on a dedicated thread, never on the Swift cooperative pool.
public final class HCIScanner: Sendable {
    /// The adapter name, `hci0`.
    public let adapter: String
    /// Whether the extended scan commands are in use.
    public let usesExtendedScanning: Bool
    private let fd: Int32
    private let savedFilter: hci_filter
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let failureBox = Mutex<HCIScannerError?>(nil)

    /// Why reading stopped, when it was not ``stop()``.
    public var failure: HCIScannerError? { failureBox.withLock { $0 } }

    /// Wraps an open socket; internal so that tests can read from a socket pair.
    init(adapter: String, fd: Int32, savedFilter: hci_filter = hci_filter(), extended: Bool, logger: Logger) {
        self.adapter = adapter
        self.fd = fd
        self.savedFilter = savedFilter
        self.usesExtendedScanning = extended
        self.logger = logger
    }

    /// A scanner dropped without ever reading (the edge failed to start after opening it) still
    /// disables its scan and restores the socket; after ``read(into:)`` this does nothing.
    deinit { teardown() }

    /// Opens the adapter and starts scanning, on a thread of its own.
    /// - Throws: ``HCIScannerError`` saying what is missing (support, adapter, permission) and
    ///   what to do.
    public static func open(adapter: String, scan: EdgeConfig.Scan, logger: Logger) async throws(HCIScannerError) -> HCIScanner {
        let result: Result<HCIScanner, HCIScannerError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(HCIScannerError) in try openBlocking(adapter, scan, logger) })
            }
            thread.name = "beacon-edge.hci.open"
            thread.start()
        }
        return try result.get()
    }

    private static func openBlocking(_ adapter: String, _ scan: EdgeConfig.Scan, _ logger: Logger) throws(HCIScannerError) -> HCIScanner {
        // Not libbluetooth's hci_devid: it fails with ENETDOWN for an adapter that is down, the
        // very adapter ensureUp is there to bring up.
        guard let devID = deviceIndex(of: adapter) else { throw .adapterNotFound(adapter: adapter) }
        var info = hci_dev_info()
        if hci_devinfo(devID, &info) != 0 {
            let code = bn_errno()
            switch code {
            case EAFNOSUPPORT, EPROTONOSUPPORT: throw .bluetoothUnavailable(adapter: adapter, errno: code)
            case EPERM, EACCES: throw .permissionDenied(adapter: adapter, operation: "read adapter information", errno: code)
            case ENODEV: throw .adapterNotFound(adapter: adapter)
            default: throw .system(adapter: adapter, operation: "reading adapter information", errno: code)
            }
        }
        let fd = hci_open_dev(devID)
        guard fd >= 0 else {
            let code = bn_errno()
            switch code {
            case EPERM, EACCES: throw .permissionDenied(adapter: adapter, operation: "open a raw HCI socket", errno: code)
            case ENODEV: throw .adapterNotFound(adapter: adapter)
            default: throw .system(adapter: adapter, operation: "opening the HCI socket", errno: code)
            }
        }
        do throws(HCIScannerError) {
            try ensureUp(adapter, devID: devID, fd: fd, logger: logger)
            var saved = hci_filter()
            guard bn_hci_get_filter(fd, &saved) == 0 else {
                throw .system(adapter: adapter, operation: "reading the socket filter", errno: bn_errno())
            }
            var filter = hci_filter()
            bn_hci_filter_clear(&filter)
            bn_hci_filter_set_ptype(Int32(HCI_EVENT_PKT), &filter)
            bn_hci_filter_set_event(Int32(EVT_LE_META_EVENT), &filter)
            bn_hci_filter_set_event(Int32(EVT_CMD_COMPLETE), &filter)
            bn_hci_filter_set_event(Int32(EVT_CMD_STATUS), &filter)
            guard bn_hci_set_filter(fd, &filter) == 0 else {
                throw .system(adapter: adapter, operation: "installing the socket filter", errno: bn_errno())
            }
            let channel = CommandChannel(fd: fd, adapter: adapter)
            let extended: Bool
            do {
                extended = try startScan(channel, scan, logger: logger)
            } catch {
                _ = bn_hci_set_filter(fd, &saved)
                throw error
            }
            logger.info(
                "scanning",
                metadata: [
                    "hci.adapter": "\(adapter)", "hci.commands": "\(extended ? "extended" : "legacy")",
                    "hci.interval_ms": "\(scan.intervalMilliseconds)", "hci.window_ms": "\(scan.windowMilliseconds)",
                ])
            return HCIScanner(adapter: adapter, fd: fd, savedFilter: saved, extended: extended, logger: logger)
        } catch {
            close(fd)
            throw error
        }
    }

    private static func ensureUp(_ adapter: String, devID: Int32, fd: Int32, logger: Logger) throws(HCIScannerError) {
        var info = hci_dev_info()
        guard hci_devinfo(devID, &info) == 0 else {
            throw .system(adapter: adapter, operation: "reading adapter information", errno: bn_errno())
        }
        guard bn_hci_dev_is_up(&info) == 0 else { return }
        logger.notice("adapter is down; bringing it up", metadata: ["hci.adapter": "\(adapter)"])
        guard bn_hci_dev_up(fd, devID) != 0 else { return }
        let code = bn_errno()
        switch code {
        case EALREADY: return
        case ERFKILL: throw .blocked(adapter: adapter)
        case EPERM, EACCES: throw .permissionDenied(adapter: adapter, operation: "bring the adapter up", errno: code)
        default: throw .adapterDown(adapter: adapter, reason: HCIScannerError.text(code))
        }
    }

    /// The device index of `hciN`, the N; nil for a name that is not `hci` and a decimal number.
    static func deviceIndex(of adapter: String) -> Int32? {
        guard adapter.hasPrefix("hci") else { return nil }
        let digits = adapter.dropFirst(3)
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int32(digits),
            index <= 0xFFFF
        else { return nil }
        return index
    }

    /// Configures and enables the scan; returns whether the extended commands are used.
    static func startScan(_ channel: some HCICommandTransport, _ scan: EdgeConfig.Scan, logger: Logger) throws(HCIScannerError) -> Bool {
        // Stop a scan someone left on (its answer does not matter: "disallowed" when none runs).
        _ = try? channel.send(.leSetScanEnable(false))
        var refused: (command: HCICommand, status: HCIStatus)?
        for command in [HCICommand.leSetScanParameters(interval: scan.intervalUnits, window: scan.windowUnits), .leSetScanEnable(true)] {
            let status = try channel.send(command)
            guard status == .success else {
                refused = (command, status)
                break
            }
        }
        guard let (legacy, status) = refused else { return false }
        // Controllers that were driven with the extended commands (bluetoothd on 5.x chips does)
        // disallow the legacy ones until reset, and some 5.x controllers do not know them: use
        // the extended ones. Any other refusal is reported as it is.
        guard status == .commandDisallowed || status == .unknownCommand else {
            throw .commandFailed(adapter: channel.adapter, command: legacy.description, status: status, detail: nil)
        }
        logger.info(
            "legacy scan commands refused; using the extended ones",
            metadata: ["hci.adapter": "\(channel.adapter)", "hci.command": "\(legacy)", "hci.status": "\(status)"])
        let legacyNote = "\(legacy) had answered \(status)"
        _ = try? channel.send(.leSetExtendedScanEnable(false))
        let parameters = HCICommand.leSetExtendedScanParameters(interval: scan.intervalUnits, window: scan.windowUnits)
        let accepted = try channel.send(parameters)
        guard accepted == .success else {
            throw .commandFailed(adapter: channel.adapter, command: parameters.description, status: accepted, detail: legacyNote)
        }
        let enable = HCICommand.leSetExtendedScanEnable(true)
        let enabled = try channel.send(enable)
        guard enabled == .success else {
            throw .commandFailed(adapter: channel.adapter, command: enable.description, status: enabled, detail: legacyNote)
        }
        return true
    }

    /// How often the read loop hands the pipeline the time, µs, so that windows close on time
    /// when nothing is heard.
    static let tickInterval: Int64 = 100_000

    /// Reads LE Meta events on a new thread until ``stop()`` or a failure, handing each to
    /// `sink` with the time it was read, and the time alone every ``tickInterval``; then disables
    /// the scan, restores the socket filter, closes the socket and finishes `sink`.
    ///
    /// One thread stamps and yields both, so they reach the pipeline in time order however far
    /// behind it runs. (A clock from another task, stamped when it was sent, overtook packets
    /// still queued for a busy pipeline, which then put them in a later window than their time.)
    public func read(into sink: AsyncStream<SourceItem>.Continuation) {
        let thread = Thread { [self] in
            readLoop(sink)
            teardown()
            sink.finish()
        }
        thread.name = "beacon-edge.hci.read"
        thread.start()
    }

    /// Asks the read loop to end (within its 100 ms poll).
    public func stop() {
        stopping.store(true, ordering: .releasing)
    }

    private func readLoop(_ sink: AsyncStream<SourceItem>.Continuation) {
        var buffer = [UInt8](repeating: 0, count: 260)  // H4 type + HCI_MAX_EVENT_SIZE
        var overflow = 0
        var nextTick = Self.now() + Self.tickInterval
        while !stopping.load(ordering: .acquiring) {
            let untilTick = nextTick - Self.now()
            if untilTick <= 0 {
                let now = Self.now()
                _ = sink.yield(.clock(now))
                nextTick = now + Self.tickInterval
                continue
            }
            let ready = bn_poll_readable(fd, Int32((untilTick + 999) / 1000))
            if ready == 0 { continue }
            if ready < 0 {
                let code = bn_errno()
                if ready == -1 && code == EINTR { continue }
                fail(.system(adapter: adapter, operation: "waiting for events (the adapter went away?)", errno: ready == -2 ? ENODEV : code))
                return
            }
            let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = bn_errno()
                if code == EINTR || code == EAGAIN { continue }
                fail(.system(adapter: adapter, operation: "reading events (the adapter went down?)", errno: code))
                return
            }
            // H4 event packets only; LE Meta (0x3E) carries the advertising reports.
            guard count >= 3, buffer[0] == UInt8(HCI_EVENT_PKT), buffer[1] == HCIEvent.leMetaEventCode else { continue }
            let packet = HCIPacket(event: buffer[1..<count].withUnsafeBufferPointer { Array($0) }[...], time: Self.now())
            if case .dropped(.packet) = sink.yield(.packet(packet)) {
                overflow += 1
                if overflow.nonzeroBitCount == 1 {
                    logger.warning("pipeline behind the radio; oldest events dropped", metadata: ["hci.dropped": "\(overflow)"])
                }
            }
        }
    }

    private func fail(_ error: HCIScannerError) {
        logger.error("scanning stopped", metadata: ["hci.adapter": "\(adapter)", "hci.error": "\(error)"])
        failureBox.withLock { $0 = $0 ?? error }
    }

    /// Disables the scan and restores the adapter socket as it was. Idempotent.
    private func teardown() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let channel = CommandChannel(fd: fd, adapter: adapter)
        let disable: HCICommand = usesExtendedScanning ? .leSetExtendedScanEnable(false) : .leSetScanEnable(false)
        do {
            let status = try channel.send(disable)
            if status != .success {
                logger.warning("scan disable refused", metadata: ["hci.adapter": "\(adapter)", "hci.status": "\(status)"])
            }
        } catch {
            logger.warning("scan not disabled", metadata: ["hci.adapter": "\(adapter)", "hci.error": "\(error)"])
        }
        var filter = savedFilter
        if bn_hci_set_filter(fd, &filter) != 0 {
            logger.warning("socket filter not restored", metadata: ["hci.errno": "\(bn_errno())"])
        }
        close(fd)
        logger.info("scan stopped, adapter restored", metadata: ["hci.adapter": "\(adapter)"])
    }

    /// Wall-clock time in µs since the epoch.
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}

/// Where the scan set-up sends its commands: the socket, or a scripted controller in tests.
protocol HCICommandTransport {
    /// The adapter, for errors.
    var adapter: String { get }
    /// Sends `command` and returns the status the controller answered with.
    func send(_ command: HCICommand) throws(HCIScannerError) -> HCIStatus
}

/// Sends HCI commands on the socket and waits (bounded) for their answer; on the scanner's thread.
struct CommandChannel: HCICommandTransport {
    let fd: Int32
    let adapter: String

    /// Writes `command` and returns the status of its Command Complete or Command Status.
    func send(_ command: HCICommand) throws(HCIScannerError) -> HCIStatus {
        let packet = command.packet
        let written = packet.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        guard written == packet.count else {
            let code = bn_errno()
            switch code {
            case EPERM, EACCES: throw .permissionDenied(adapter: adapter, operation: "send \(command)", errno: code)
            case ENETDOWN: throw .adapterDown(adapter: adapter, reason: "the adapter went down (\(HCIScannerError.text(code)))")
            case ERFKILL: throw .blocked(adapter: adapter)
            default: throw .system(adapter: adapter, operation: "sending \(command)", errno: code)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 260)
        let deadline = HCIScanner.now() + 2_000_000
        while HCIScanner.now() < deadline {
            let ready = bn_poll_readable(fd, 100)
            if ready == 0 { continue }
            if ready < 0 {
                if ready == -1 && bn_errno() == EINTR { continue }
                throw .system(adapter: adapter, operation: "waiting for the answer to \(command)", errno: ready == -2 ? ENODEV : bn_errno())
            }
            let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            guard count > 1, buffer[0] == UInt8(HCI_EVENT_PKT) else { continue }
            if let status = command.status(in: buffer[1..<count]) { return status }
        }
        throw .commandTimedOut(adapter: adapter, command: command.description)
    }
}
