import BeaconCore
import BeaconMQTT
import BeaconWire

extension AggregatorService {
    /// A primary's first step on the hub: if a standby of its (a status naming it in
    /// `standby_for`) is serving its stores, says it is back — `online`, not serving yet — and
    /// waits until that standby has stepped back (its last states on the hub, its status no longer
    /// serving) or ``AggregatorSettings/handBackTimeout`` has passed, so that the restore reads
    /// the states the standby decided last. Returns whether a standby had been serving.
    func awaitHandBack(_ client: MQTTClient) async -> Bool {
        let marker = settings.syncMarker
        let nonce = Array("handback-\(settings.clock())-\(UInt64.random(in: 0...UInt64.max))".utf8)
        let subscription: MQTTSubscription
        do {
            subscription = try await client.subscribe(to: [settings.scheme.allAggregatorStatuses, marker], qos: .atLeastOnce)
            try await client.publish(to: marker, payload: nonce, qos: .atLeastOnce, retain: false)
        } catch {
            logger.warning("cannot read the other instances' statuses (\(error)): not waiting for a standby to hand back")
            return false
        }
        defer { client.unsubscribe(subscription) }
        var serving = Set<AggregatorID>()
        var waited = false
        // Until the retained statuses are read (the marker), the restore's own limit; then the hand-back's.
        let deadline = ContinuousClock.now + settings.restoreTimeout + settings.handBackTimeout
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(until: deadline)
                client.unsubscribe(subscription)
            }
            var synced = false
            for await message in subscription {
                if message.topic == marker {
                    guard message.payload == nonce else { continue }
                    synced = true
                    if serving.isEmpty { break }
                    waited = true
                    decisions.serving.withLock { $0 = false }
                    await publishNow(decisions.status(online: true), on: client)
                    logger.notice("waiting for \(serving.map(\.rawValue).sorted().joined(separator: ", ")) to hand back stores \(settings.stores)")
                    continue
                }
                guard !message.payload.isEmpty, let status = try? AggregatorStatus.decode(message.payload),
                      status.standbyFor == settings.aggregator else { continue }
                if status.state == .online && status.serving == true { serving.insert(status.aggregator) } else { serving.remove(status.aggregator) }
                if synced && serving.isEmpty { break }
            }
            group.cancelAll()
        }
        decisions.serving.withLock { $0 = nil }
        if waited && !serving.isEmpty {
            logger.warning("\(serving.map(\.rawValue).sorted().joined(separator: ", ")) did not hand back within \(settings.handBackTimeout): deciding the stores anyway; until it steps back both publish")
        }
        return waited
    }

    /// After a standby served: the sightings the input broker queued for this instance's
    /// session while it was away were decided by the standby, and deciding them again on top of
    /// the standby's newer states would invent moves. A clean connection under the same client
    /// id drops that session and its queue; the next connection starts a new one.
    func discardQueuedSightings() async {
        var clean = settings.mqtt
        clean.cleanSession = true
        let client = MQTTClient(configuration: clean, logger: logger)
        do {
            try await client.connect()
            logger.info("dropped the sightings queued while the standby served")
        } catch {
            logger.warning("could not drop the sightings queued while the standby served (\(error)): they are decided again")
        }
        await client.disconnect()
    }

    /// A primary's subscription to every instance's status, to notice a standby serving its
    /// stores (``SupersededWatchService``); nil when the hub refuses it.
    func watchStandbys(_ client: MQTTClient) async -> MQTTSubscription? {
        do {
            return try await client.subscribe(to: [settings.scheme.allAggregatorStatuses], qos: .atLeastOnce)
        } catch {
            logger.warning("cannot follow the other instances' statuses (\(error)): a standby that takes over while this instance is not heard will not be noticed")
            return nil
        }
    }

    /// Publishes `message` at once, outside the outbox (which runs only once the instance serves).
    func publishNow(_ message: Outbound, on client: MQTTClient) async {
        do {
            try await client.publish(to: message.topic, payload: message.payload, qos: .atLeastOnce, retain: true)
        } catch {
            logger.warning("could not publish \(message.topic): \(error)")
        }
    }
}
