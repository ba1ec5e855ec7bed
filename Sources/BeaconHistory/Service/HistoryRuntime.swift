public import BeaconMQTT
public import Foundation
public import Logging
public import ServiceLifecycle

/// Why the recorder could not run.
public enum HistoryRunError: Error, Sendable {
    /// The broker refused the login or the TLS set-up, or answered a plain connection with TLS:
    /// waiting will not mend it.
    case broker(MQTTError)
    /// The database could not be read at start.
    case database(HistoryDatabaseError)
    /// The arrival journal cannot be used (``HistorySettings/journalPath``).
    case journal(ArrivalJournalError)
    /// A service ended the recorder with an error of its own.
    case stopped(any Error)
}

/// beacon-history's recorder as one call: takes back the visits a previous run left open and
/// writes what its arrival journal kept, connects with a persistent session, then records until
/// SIGTERM or SIGINT — which also end the wait for a broker that is not there yet (the
/// connection is made inside the service group).
public enum HistoryRuntime {
    /// Runs the recorder of `settings` over `database`, storing devices as `book` says, with the
    /// services `alongside` (a metrics endpoint) in its group.
    public static func run(
        settings: HistorySettings, book: VisitBook, database: any HistoryDatabase, logger: Logger, alongside: [any Service] = [],
        clock: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
    ) async throws(HistoryRunError) {
        var book = book
        do throws(HistoryDatabaseError) {
            let open = try await database.openVisits()
            book.restore(open)
            logger.info("took back \(open.count) open visits")
        } catch {
            throw .database(error)
        }
        let journal: ArrivalJournal?
        do throws(ArrivalJournalError) {
            journal = try settings.journalPath.map { path throws(ArrivalJournalError) in try ArrivalJournal(path: path, logger: logger) }
        } catch {
            throw .journal(error)
        }
        let recorder = HistoryRecorder(book: book, database: database, journal: journal, scheme: settings.scheme, logger: logger)
        if let journal {
            // A previous run that was killed: what it had received (and perhaps not written).
            let recovered = journal.takeRecovered()
            for message in recovered { recorder.receive(message) }
            do throws(HistoryDatabaseError) { try await recorder.flush() } catch { throw .database(error) }
            if !recovered.isEmpty {
                logger.notice("applied \(recovered.count) messages the previous run received and had not written", metadata: ["history.journal": "\(journal.path)"])
            }
        }
        let client = MQTTClient(configuration: settings.mqtt, logger: logger)
        let subscription: MQTTSubscription
        var onArrival: (@Sendable (MQTTMessage) -> Void)?
        if let journal {
            onArrival = { message in journal.append(message) }
        }
        do throws(MQTTError) {
            subscription = try client.declareSubscription(to: settings.filters, qos: .atLeastOnce, onArrival: onArrival)
        } catch {
            throw .broker(error)
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = alongside.map { .init(service: $0) } + [
            .init(service: FlushService(recorder: recorder, settings: settings, logger: logger)),
        ]
        if let keepDays = settings.keepDays {
            services.append(.init(service: RetentionService(database: database, keepDays: keepDays, settings: settings, clock: clock, logger: logger)))
        }
        services.append(.init(service: RecordService(client: client, subscription: subscription, recorder: recorder, settings: settings, logger: logger)))
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let error as HistoryRunError {
            throw error
        } catch {
            logger.error("stopped: \(error)")
            throw .stopped(error)
        }
    }

    /// Connects, waiting out a broker that is not there yet; a refused login or a TLS failure
    /// throws. Returns false when a shutdown came first.
    static func connect(_ client: MQTTClient, settings: HistorySettings, logger: Logger) async throws(HistoryRunError) -> Bool {
        var backoff = MQTTConnectBackoff(initialDelay: settings.retryDelay)
        while !Task.isCancelled {
            do throws(MQTTError) {
                try await client.connect()
                logger.info("connected", metadata: ["mqtt.host": "\(settings.mqtt.host)", "mqtt.port": "\(settings.mqtt.port)"])
                return true
            } catch {
                switch error {
                case .notAuthorized, .tlsFailure:
                    throw .broker(error)
                default:
                    guard let delay = backoff.delay(after: error) else { throw .broker(error) }
                    logger.error("cannot connect, retrying in \(delay): \(error)")
                    do { try await Task.sleep(for: delay) } catch { return false }
                }
            }
        }
        return false
    }
}
