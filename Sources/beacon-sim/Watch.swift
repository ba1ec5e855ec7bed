import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconMQTT
import BeaconWire
import Foundation
import Logging

/// `beacon-sim watch`: prints enter/exit events as they happen, one readable line each, and can
/// record them raw (`topic payload`) for `beacon-sim evaluate`.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print live enter/exit events readably (and record them).",
        discussion: """
            A secured broker takes a dashboard login (make-acl.sh --dashboard NAME): --username, \
            --password-file, --tls-ca. The shipped brokers bind it to its user name as client id, so it \
            cannot be the login a beacon-dashboard is using at the same time.

            Runs until stopped. A broker that cannot be reached or refuses the connection exits 69.
            """)

    @OptionGroup(title: "Broker")
    var broker: BrokerOptions

    @OptionGroup
    var logging: LoggingOptions

    @Option(help: "Also append every event as 'topic payload' to this file.")
    var record: String?

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    @Flag(help: "Store events only (section changes are many).")
    var storesOnly = false

    func validate() throws {
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    func run() async throws {
        logging.bootstrap()
        let scheme = try TopicScheme(root: topicRoot)
        let mqtt = try broker.configuration(defaultClientID: broker.login.username ?? "beacon-sim-watch-\(UInt32.random(in: 0...UInt32.max))")
        let client = MQTTClient(configuration: mqtt, logger: Logger(label: "beaconnet.watch"))
        do {
            try await client.connect()
        } catch {
            throw ExitCode(.unavailable, saying: BrokerFailure.message(error, mqtt, role: "a dashboard login (make-acl.sh --dashboard NAME)"))
        }
        let subscription: MQTTSubscription
        do {
            subscription = try await client.subscribe(to: [scheme.allEvents], qos: .atLeastOnce)
        } catch {
            throw ExitCode(.unavailable, saying: "the broker at \(mqtt.host):\(mqtt.port) refused \(scheme.allEvents) to the login \(mqtt.username ?? "(none)") (\(error)): reading events takes a dashboard login (make-acl.sh --dashboard NAME)")
        }
        var file: FileHandle?
        if let record {
            // Appends: a second watch of the same run adds to its recording (evaluate drops repeats).
            guard FileManager.default.fileExists(atPath: record) || FileManager.default.createFile(atPath: record, contents: nil),
                  let handle = FileHandle(forWritingAtPath: record), (try? handle.seekToEnd()) != nil else {
                throw ValidationError(FileProblem.cannotWrite(record, flag: "--record"))
            }
            file = handle
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        for await message in subscription {
            try? file?.write(contentsOf: Data((message.topic + " ").utf8) + Data(message.payload) + Data([0x0A]))
            guard let event = try? RegionEvent.decode(message.payload) else { continue }
            if storesOnly && event.region.section != nil { continue }
            let time = formatter.string(from: Date(timeIntervalSince1970: Double(event.time) / 1000))
            let place: String
            switch event.region {
            case .store(let major): place = "\(event.storeName) (\(major))"
            case .section(let ref): place = "\(event.storeName) › \(event.sectionName ?? "?") (\(ref.store)/\(ref.section))"
            }
            var line = "\(time)  \(event.kind == .enter ? "ENTER" : "EXIT ")  \(place.padding(toLength: 42, withPad: " ", startingAt: 0)) \(event.device)"
            if let from = event.fromSection { line += "  from \(from)" }
            if let dwell = event.dwellMilliseconds { line += "  after \(dwell / 1000) s" }
            line += "  \(event.proximity.rawValue)"
            // Unbuffered: when piped (the demo), lines must still appear as events happen.
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}
