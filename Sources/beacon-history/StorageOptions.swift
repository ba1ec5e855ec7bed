public import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconHistory

/// The flags about what is kept, where and for how long (docs/HISTORY.md).
struct StorageOptions: ParsableArguments {
    /// The SQLite file or the PostgreSQL database.
    @OptionGroup
    var database: DatabaseOptions

    @Option(help: "Days of visits kept, by their enter time; older ones are deleted every hour.")
    var keepDays = 90

    @Option(help: "The chain's secret for pseudonyms: a file whose first line holds at least 16 bytes (openssl rand -hex 32 > FILE).")
    var pseudonymSecret: String?

    @Option(help: "How long a device keeps one pseudonym: day or week (UTC). Visits in two periods cannot be linked.")
    var pseudonymPeriod: PseudonymPeriod = .day

    @Flag(help: "Store the device ids as published instead of pseudonyms (not with --pseudonym-secret).")
    var storeRawDeviceIds = false

    @Option(help: "Hours without news after which an open visit is closed, at when it was last known.")
    var maxVisitHours = 12.0

    func validate() throws {
        guard keepDays >= 1 else { throw ValidationError("--keep-days \(keepDays) is not 1 or more") }
        guard maxVisitHours > 0, maxVisitHours.isFinite else { throw ValidationError("--max-visit-hours \(maxVisitHours) is not above 0") }
        switch (pseudonymSecret, storeRawDeviceIds) {
        case (nil, false):
            throw ValidationError("give --pseudonym-secret FILE (device ids are stored pseudonymised), or --store-raw-device-ids to store them as published")
        case (.some, true):
            throw ValidationError("--pseudonym-secret and --store-raw-device-ids exclude each other")
        default:
            break
        }
    }

    /// How device ids are stored; throws (exit 78) when the secret cannot be read or is short.
    func keying() throws -> DeviceKeying {
        guard let pseudonymSecret else { return .rawIdentifiers }
        do {
            return .pseudonyms(Pseudonymizer(secret: try PseudonymSecret.read(path: pseudonymSecret), period: pseudonymPeriod))
        } catch {
            let reason = error == .unreadable(path: pseudonymSecret) ? FileProblem.cannotRead(pseudonymSecret) : "\(error)"
            throw ExitCode(.configError, saying: "--pseudonym-secret: \(reason)")
        }
    }

    /// The visit book's limits from the flags.
    var limits: VisitBook.Limits {
        var limits = VisitBook.Limits()
        limits.staleAfter = Int64(maxVisitHours * 3_600_000)
        return limits
    }

    /// How the database is opened for writing with `keying`: the kind of device key it holds,
    /// and the secret's fingerprint.
    func access(keying: DeviceKeying) -> HistoryDatabaseAccess {
        var fingerprint: String?
        if case .pseudonyms(let pseudonymizer) = keying { fingerprint = pseudonymizer.secretFingerprint }
        return .writing(deviceKeys: keying.kindName, secretFingerprint: fingerprint)
    }
}

extension PseudonymPeriod: ExpressibleByArgument {}
