// beacon-vhci: a virtual LE controller behind Linux's /dev/vhci for the live-scan test
// (deploy/scripts/live-scan-test.sh). It becomes an HCI primary controller, answers the kernel's
// init and beacon-edge's scan commands (VirtualController), and while scanning is on sends the
// advertising reports of the given btsnoop captures (AdvertReplay) with their recorded RSSI.
//
// It writes one line per thing that happened to stdout (the test reads them):
//   created hciN                  the kernel registered the controller
//   adapter up|open|down          the adapter's state changed (polled every 50 ms; open: the
//                                 kernel opened the transport but reports the adapter down)
//   ready hciN                    the kernel's own power-on cycle is over: the adapter is down
//   cmd 0x200c LE Set Scan Enable -> 0x00 (Success)
//   scan legacy|extended|off      scanning changed
//   go                            SIGUSR1 came: the replay may start (with --wait-for-go)
//   replayed N reports in M events (K not reportable as legacy|extended)
//   exit scan=off resets=N sent=M
//
// No Foundation: under an emulated CPU every library loaded costs seconds.
import BeaconCore
import CBlueZ
import Glibc
import VirtualController

@main
struct BeaconVHCI {
    static func main() {
        var runner = Runner(options: Options(Array(CommandLine.arguments.dropFirst())))
        runner.run()
    }
}

/// One line to stdout, written at once (the test polls the file).
func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

func fail(_ message: String) -> Never {
    say("error: \(message)")
    exit(1)
}

func errnoText() -> String { String(cString: strerror(errno)) }

/// Monotonic time in µs.
func now() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fail("cannot open \(path): \(errnoText())") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

/// The command line. (A hand-written loop: ArgumentParser would bring Foundation in.)
struct Options {
    var profile = ControllerProfile.legacy
    var captures: [String] = []
    /// Recorded gaps are divided by this.
    var speed = 5.0
    /// And capped at this, µs, so a quiet minute in a capture does not stall the test.
    var maxGap: Int64 = 50_000
    /// How long after scanning is enabled the first report goes out, µs.
    var startDelay: Int64 = 100_000
    /// Hold the replay until SIGUSR1: the test sends it once the edge is reading, since reports
    /// sent before would only fill the socket's receive buffer (about 160 events) and then be
    /// dropped by the kernel, as on any adapter scanning with nobody reading.
    var waitForGo = false

    static let usage = """
        usage: beacon-vhci --profile legacy|extended --capture FILE [--capture FILE …] [--speed 5] [--max-gap-ms 50] [--wait-for-go]
        """

    init(_ arguments: [String]) {
        var rest = arguments[...]
        func value(_ flag: String) -> String {
            guard let next = rest.popFirst() else { fail("\(flag) needs a value\n\(Self.usage)") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--profile":
                let name = value(argument)
                guard let profile = ControllerProfile(rawValue: name) else { fail("unknown profile \(name)\n\(Self.usage)") }
                self.profile = profile
            case "--capture": captures.append(value(argument))
            case "--wait-for-go": waitForGo = true
            case "--speed":
                guard let speed = Double(value(argument)), speed > 0 else { fail("--speed must be a positive number") }
                self.speed = speed
            case "--max-gap-ms":
                guard let gap = Int64(value(argument)), gap >= 0 else { fail("--max-gap-ms must be a whole number ≥ 0") }
                maxGap = gap * 1000
            default: fail("unknown argument \(argument)\n\(Self.usage)")
            }
        }
        if captures.isEmpty { fail("no --capture\n\(Self.usage)") }
    }
}

/// The controller's one thread: `/dev/vhci` in and out, the replay's clock, the adapter's state.
struct Runner {
    let options: Options
    let replay: AdvertReplay
    var controller: VirtualController
    var vhci: Int32 = -1
    var index: Int32 = -1
    /// The next item of the replay, and when it goes out while scanning.
    var next = 0
    var due: Int64?
    var sentReports = 0
    var sentEvents = 0
    var unreportable = 0
    var adapter = AdapterState.unknown
    var sawOpen = false
    var ready = false
    var settleDeadline: Int64 = 0
    var buffer = [UInt8](repeating: 0, count: 2048)

    init(options: Options) {
        self.options = options
        do {
            replay = try AdvertReplay(captures: options.captures.map { try BtsnoopFile(readFile($0)) })
        } catch {
            fail("reading the captures: \(error)")
        }
        // A public address per profile, so the two runs' adapters are told apart in logs.
        controller = VirtualController(profile: options.profile, address: options.profile == .legacy ? 0xC0FF_EE00_0001 : 0xC0FF_EE00_0002)
    }

    mutating func run() {
        // SIGTERM and SIGINT are taken synchronously in the loop: no handler, no shared state.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGUSR1)
        sigprocmask(SIG_BLOCK, &signals, nil)
        var go = !options.waitForGo

        vhci = open("/dev/vhci", O_RDWR)
        guard vhci >= 0 else { fail("cannot open /dev/vhci: \(errnoText()) (is hci_vhci loaded?)") }
        // Vendor packet 0xFF, opcode 0x00: create an HCI primary controller; the answer has its index.
        var create: [UInt8] = [0xFF, 0x00]
        guard write(vhci, &create, 2) == 2 else { fail("creating the controller: \(errnoText())") }
        let created = read(vhci, &buffer, buffer.count)
        guard created == 4, buffer[0] == 0xFF else { fail("unexpected answer to the create request (\(created) bytes)") }
        index = Int32(buffer[2]) | Int32(buffer[3]) << 8
        say("created hci\(index)")
        settleDeadline = now() + 15_000_000

        var zero = timespec()
        var nextStatePoll: Int64 = 0
        while true {
            let signal = sigtimedwait(&signals, nil, &zero)
            if signal == SIGTERM || signal == SIGINT { break }
            if signal == SIGUSR1 && !go {
                go = true
                say("go")
                if controller.scan != .off && next < replay.items.count { due = now() + options.startDelay }
            }
            if now() >= nextStatePoll {
                pollAdapter()
                nextStatePoll = now() + 50_000
            }
            if go { sendDue() }
            var timeout: Int64 = 50_000
            if go, controller.scan != .off, let when = due { timeout = max(0, min(timeout, when - now())) }
            var pfd = pollfd(fd: vhci, events: Int16(POLLIN), revents: 0)
            let readable = poll(&pfd, 1, Int32(timeout / 1000))
            if readable < 0 {
                if errno == EINTR { continue }
                fail("poll: \(errnoText())")
            }
            if readable > 0 { receive(pfd.revents) }
        }
        say("exit scan=\(controller.scan) resets=\(controller.resets) sent=\(sentReports)")
        close(vhci)
    }

    /// Sends the replay's items that are due while scanning.
    mutating func sendDue() {
        while controller.scan != .off, next < replay.items.count, let when = due, now() >= when {
            let (packets, missing) = AdvertReplay.packets(for: replay.items[next], scan: controller.scan)
            for var packet in packets {
                guard write(vhci, &packet, packet.count) == packet.count else { fail("sending a report: \(errnoText())") }
            }
            sentEvents += packets.count
            sentReports += replay.items[next].reports.count - missing
            unreportable += missing
            next += 1
            if next == replay.items.count {
                say("replayed \(sentReports) reports in \(sentEvents) events (\(unreportable) not reportable as \(controller.scan))")
                due = nil
            } else {
                let recorded = replay.items[next].time - replay.items[next - 1].time
                due = when + min(Int64(Double(recorded) / options.speed), options.maxGap)
            }
        }
    }

    /// Reads one packet from the kernel and answers it when it is a command.
    mutating func receive(_ events: Int16) {
        if events & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { fail("/dev/vhci closed under us") }
        let count = read(vhci, &buffer, buffer.count)
        guard count > 0 else {
            if count < 0 && (errno == EINTR || errno == EAGAIN) { return }
            fail("reading /dev/vhci: \(count == 0 ? "end of file" : errnoText())")
        }
        let packet = Array(buffer[0..<count])
        guard packet[0] == 0x01 else {
            say("ignored packet of type 0x\(String(packet[0], radix: 16)), \(count) bytes")
            return
        }
        let before = controller.scan
        guard let reply = controller.handle(command: packet) else {
            say("malformed command packet, \(count) bytes")
            return
        }
        var answer = reply.packet
        guard write(vhci, &answer, answer.count) == answer.count else { fail("answering: \(errnoText())") }
        say(reply.summary)
        if controller.scan != before {
            say("scan \(controller.scan)")
            if controller.scan != .off && next < replay.items.count { due = now() + options.startDelay }
        }
    }

    /// Follows the adapter's state, and says `ready` once the kernel's own power cycle of the new
    /// controller is over: Linux powers a new controller on by itself and, with no bluetoothd to
    /// claim it, off again 2 s later. The edge then finds it down, as on a gateway without
    /// bluetoothd, and must bring it up. (While that power-off is pending the kernel reports the
    /// adapter down already, so the cycle is seen on HCI_RUNNING: the transport open.)
    mutating func pollAdapter() {
        var info = hci_dev_info()
        let state: AdapterState
        if hci_devinfo(index, &info) != 0 {
            state = .unknown
        } else if bn_hci_dev_is_up(&info) != 0 {
            state = .up
        } else if info.flags & (1 << 2) != 0 {  // HCI_RUNNING
            state = .open
        } else {
            state = .down
        }
        if state != adapter {
            say("adapter \(state)")
            adapter = state
        }
        if state == .open || state == .up { sawOpen = true }
        if !ready && ((sawOpen && state == .down) || now() > settleDeadline) {
            ready = true
            say(sawOpen && state == .down ? "ready hci\(index)" : "ready hci\(index) (the kernel's power-on cycle was not seen)")
        }
    }
}

/// The adapter as `HCIGETDEVINFO` shows it.
enum AdapterState: String, CustomStringConvertible {
    case unknown, down, open, up
    var description: String { rawValue }
}
