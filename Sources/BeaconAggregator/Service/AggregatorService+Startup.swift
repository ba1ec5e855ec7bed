import BeaconMQTT
import BeaconWire
import ServiceLifecycle

extension AggregatorService {
    /// Connects, retrying with back-off until it works or the service is asked to stop; a port
    /// that answers with TLS is given up on after a few attempts (``MQTTConnectBackoff``), and a
    /// refused login or certificate at once: both throw a ``BrokerConnectFailure`` naming the
    /// `connection`.
    func connect(_ client: MQTTClient, as connection: BrokerConnectFailure.Connection) async throws -> Bool {
        let broker = "\(client.configuration.host):\(client.configuration.port)"
        let role = connection == .sightings ? "input broker (sightings)" : "output hub (events)"
        var backoff = MQTTConnectBackoff()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await client.connect()
                logger.info("connected to the \(role)", metadata: [
                    "mqtt.host": "\(client.configuration.host)", "mqtt.port": "\(client.configuration.port)",
                    "mqtt.version": "\(client.configuration.protocolVersion)",
                ])
                return true
            } catch {
                switch error {
                case .notAuthorized, .tlsFailure:
                    // Retrying cannot fix credentials or certificates: fail loudly.
                    logger.critical("cannot connect to the \(role) at \(broker) as \(client.configuration.username ?? "no user") (client id \(client.clientID)): \(error)")
                    throw BrokerConnectFailure(connection: connection, configuration: client.configuration, error: error)
                default:
                    guard let delay = backoff.delay(after: error) else {
                        logger.critical("cannot connect to the \(role) at \(broker): \(error)")
                        throw BrokerConnectFailure(connection: connection, configuration: client.configuration, error: error)
                    }
                    logger.error("cannot connect to the \(role) at \(broker), retrying in \(delay): \(error)")
                    try? await Task.sleep(for: delay)
                }
            }
        }
        return false
    }

    /// Reads back the device states of this instance's stores (snapshot file and retained topics)
    /// before anything is decided, so a restart invents no enter and forgets no one inside.
    /// Returns what a previous run decided that never reached the broker (see ``Decisions/restore(_:retained:complete:)``).
    func restore(_ client: MQTTClient) async -> [Outbound] {
        var file = SnapshotFile.Contents()
        if let path = settings.snapshotPath {
            file = SnapshotFile.read(path: path) { logger.warning("snapshot: \($0)") }
        }
        let (retained, complete) = await readRetainedStates(client)
        return decisions.restore(file, retained: retained, complete: complete)
    }

    /// The retained device states, and whether all of them arrived (none dropped, and the read
    /// ended by its marker rather than after ``AggregatorSettings/restoreTimeout`` without a message).
    func readRetainedStates(_ client: MQTTClient) async -> (states: [DeviceState], complete: Bool) {
        var retained: [DeviceState] = []
        var synced = false
        let marker = settings.syncMarker
        let nonce = Array("\(settings.clock())-\(UInt64.random(in: 0...UInt64.max))".utf8)
        do {
            // The broker sends the retained states of a new subscription before anything published
            // after it, so our own marker message arriving means every retained state has arrived.
            let subscription = try await client.subscribe(to: [settings.scheme.allDeviceStates, marker], qos: .atLeastOnce)
            try await client.publish(to: marker, payload: nonce, qos: .atLeastOnce, retain: false)
            // A chain's states take a while to arrive (a million: about 20 s): the read ends at its
            // marker, or once nothing has arrived for restoreTimeout.
            let idle = IdleTimer(limit: settings.restoreTimeout)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await idle.expiry()
                    client.unsubscribe(subscription)
                }
                for await message in subscription {
                    idle.touch()
                    if message.topic == marker {
                        if message.payload == nonce {
                            synced = true
                            break
                        }
                        continue
                    }
                    if let s = decisions.sharedState(message) { retained.append(s) }
                }
                group.cancelAll()
            }
            client.unsubscribe(subscription)
            if !synced {
                logger.warning("restore: the retained device states had not all arrived, nothing for \(settings.restoreTimeout) (\(retained.count) read); devices whose state did not arrive keep the snapshot's state without publishing it again (without one, they are decided afresh) — a slow broker, or raise AggregatorSettings.restoreTimeout")
            }
            if subscription.droppedMessages > 0 {
                logger.error("restore: \(subscription.droppedMessages) retained device state(s) arrived faster than they were read and were dropped; those devices are decided afresh (raise AggregatorSettings.restoreBuffer)")
                return (retained, false)
            }
        } catch {
            logger.warning("could not read retained device states: \(error); restoring from the snapshot only")
            return (retained, false)
        }
        return (retained, synced)
    }

    /// Owning part of a chain, the instance shares the retained device-state topics with the
    /// instances owning the rest: it keeps reading them (see ``FollowerService``). Nil when it
    /// owns every store, or cannot subscribe.
    func followOthers(_ client: MQTTClient) async -> MQTTSubscription? {
        guard !settings.stores.isAll else { return nil }
        do {
            return try await client.subscribe(to: [settings.scheme.allDeviceStates], qos: .atLeastOnce)
        } catch {
            logger.error("cannot follow other instances' device states (\(error)): a device that moves to another instance's store may have its state there overwritten by this one's exit")
            return nil
        }
    }
}
