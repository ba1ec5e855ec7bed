import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Connecting, authenticating, TLS, the Last Will, reconnecting and disconnecting, against a
/// real mosquitto.
@Suite("Connection", .hangLimit)
struct ConnectionTests {
    @Test("user name and password are accepted")
    func passwordAccepted() async throws {
        try await withBroker(BrokerConfiguration(users: ["edge": "s3cret"], allowAnonymous: false)) { broker in
            var config = configuration(for: broker, clientID: "edge")
            config.username = "edge"
            config.password = "s3cret"
            try await MQTTClient.withConnection(configuration: config, logger: testLogger) { client in
                #expect(client.isConnected)
                let subscription = try await client.subscribe(to: ["auth/ok"], qos: .atLeastOnce)
                try await client.publish(to: "auth/ok", payload: "yes".bytes, qos: .atLeastOnce, retain: false)
                #expect(try await collect(1, from: subscription).first?.payload.text == "yes")
            }
        }
    }

    @Test(
        "a wrong password or no account is refused with notAuthorized",
        arguments: [MQTTProtocolVersion.v311, .v5], [("edge", "wrong"), nil] as [(String, String)?])
    func passwordRefused(version: MQTTProtocolVersion, credentials: (String, String)?) async throws {
        try await withBroker(BrokerConfiguration(users: ["edge": "s3cret"], allowAnonymous: false)) { broker in
            var config = configuration(for: broker, clientID: "intruder", protocolVersion: version)
            config.username = credentials?.0
            config.password = credentials?.1
            let client = MQTTClient(configuration: config, logger: testLogger)
            let error = await #expect(throws: MQTTError.self) { try await client.connect() }
            guard case .notAuthorized = error else {
                Issue.record("expected notAuthorized, got \(String(describing: error))")
                return
            }
            #expect(!client.isConnected)
            await client.disconnect()
        }
    }

    @Test("TLS with the broker's CA connects, by IP and by name")
    func tlsAccepted() async throws {
        try await withBroker(BrokerConfiguration(tls: true)) { broker in
            for host in ["127.0.0.1", "localhost"] {
                var config = configuration(for: broker, clientID: "tls-\(host)")
                config.host = host
                config.port = try #require(broker.tlsPort)
                config.tls = MQTTTLSConfiguration(caFile: try #require(broker.caFile))
                try await MQTTClient.withConnection(configuration: config, logger: testLogger) { client in
                    let subscription = try await client.subscribe(to: ["tls/check"], qos: .exactlyOnce)
                    try await client.publish(to: "tls/check", payload: "sealed".bytes, qos: .exactlyOnce, retain: false)
                    #expect(try await collect(1, from: subscription).first?.payload.text == "sealed")
                }
            }
        }
    }

    @Test("TLS with an unrelated CA is refused with tlsFailure")
    func tlsWrongCA() async throws {
        try await withBroker(BrokerConfiguration(tls: true)) { broker in
            let stranger = try await TestCertificateAuthority.create(in: broker.directory, name: "stranger")
            var config = configuration(for: broker, clientID: "tls-wrong")
            config.port = try #require(broker.tlsPort)
            config.tls = MQTTTLSConfiguration(caFile: stranger.certificateFile)
            let client = MQTTClient(configuration: config, logger: testLogger)
            let error = await #expect(throws: MQTTError.self) { try await client.connect() }
            guard case .tlsFailure(let detail) = error else {
                Issue.record("expected tlsFailure, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("certificate verify failed"), "detail: \(detail)")
            await client.disconnect()
        }
    }

    @Test("a closed port gives hostUnreachable with ECONNREFUSED")
    func hostUnreachable() async throws {
        let port = try Broker.unusedPort()
        let client = MQTTClient(
            configuration: MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "lonely"), logger: testLogger)
        let error = await #expect(throws: MQTTError.self) { try await client.connect() }
        #expect(
            error == .hostUnreachable(
                host: "127.0.0.1", port: port, errno: ECONNREFUSED, reason: String(cString: strerror(ECONNREFUSED))))
        // A failed connect leaves the client usable: the same error again, no hang.
        await #expect(throws: MQTTError.self) { try await client.connect() }
        await client.disconnect()
    }

    @Test("a broker that accepts TCP but never answers gives a timeout")
    func connectTimeout() async throws {
        try await withBroker { broker in
            broker.pause()
            defer { broker.resume() }
            var config = configuration(for: broker, clientID: "patient")
            config.connectTimeout = .milliseconds(500)
            let client = MQTTClient(configuration: config, logger: testLogger)
            let error = await #expect(throws: MQTTError.self) { try await client.connect() }
            guard case .timeout = error else {
                Issue.record("expected timeout, got \(String(describing: error))")
                return
            }
            await client.disconnect()
        }
    }

    @Test("the Last Will is published when a client's connection dies without DISCONNECT")
    func lastWill() async throws {
        try await withBroker { broker in
            let watcher = try await connectedClient(configuration(for: broker, clientID: "watcher"))
            let statuses = try await watcher.subscribe(to: ["gateways/+/status"], qos: .atLeastOnce)

            var config = configuration(for: broker, clientID: "gw-doomed")
            config.will = MQTTWill(topic: "gateways/gw-doomed/status", payload: "offline".bytes, qos: .atLeastOnce, retain: false)
            config.reconnect = .disabled
            let doomed = try await connectedClient(config)
            let events = doomed.connectionEvents()
            try await doomed.publish(to: "gateways/gw-doomed/status", payload: "online".bytes, qos: .atLeastOnce, retain: false)
            #expect(try await collect(1, from: statuses).first?.payload.text == "online")

            doomed.simulateConnectionLoss()
            let will = try await collect(1, from: statuses)
            #expect(will.first?.topic == "gateways/gw-doomed/status")
            #expect(will.first?.payload.text == "offline")
            guard case .lost = try await nextEvent(events) else {
                Issue.record("expected a lost event")
                return
            }
            #expect(!doomed.isConnected)
            await doomed.disconnect()
            await watcher.disconnect()
        }
    }

    @Test("a clean disconnect does not publish the Last Will")
    func noWillOnCleanDisconnect() async throws {
        try await withBroker { broker in
            let watcher = try await connectedClient(configuration(for: broker, clientID: "watcher"))
            let statuses = try await watcher.subscribe(to: ["gateways/+/status"], qos: .atLeastOnce)
            var config = configuration(for: broker, clientID: "gw-polite")
            config.will = MQTTWill(topic: "gateways/gw-polite/status", payload: "offline".bytes)
            let polite = try await connectedClient(config)
            await polite.disconnect()
            let message = await nextMessage(on: statuses, within: .milliseconds(700))
            #expect(message == nil)
            await watcher.disconnect()
        }
    }

    @Test("after the broker restarts on the same port, the client reconnects and its subscription works again")
    func reconnectRestoresSubscriptions() async throws {
        try await withBroker { broker in
            let subscriber = try await connectedClient(configuration(for: broker, clientID: "aggregator"))
            let events = subscriber.connectionEvents()
            let subscription = try await subscriber.subscribe(to: ["sightings/#"], qos: .atLeastOnce)

            try await broker.stop()
            guard case .lost = try await nextEvent(events) else {
                Issue.record("expected a lost event")
                return
            }
            #expect(!subscriber.isConnected)
            await #expect(throws: MQTTError.notConnected) {
                try await subscriber.publish(to: "x", payload: [], qos: .atLeastOnce, retain: false)
            }

            try await broker.start()
            #expect(try await nextEvent(events) == .connected(sessionPresent: false))

            let publisher = try await connectedClient(configuration(for: broker, clientID: "edge"))
            // The re-SUBSCRIBE races with the publisher's first message; publish until one arrives.
            let collector = MessageCollector(subscription)
            var attempt = 0
            _ = try await pollAsync("a message through the restored subscription", every: .milliseconds(250)) { () async throws -> Bool? in
                if !collector.messages.isEmpty { return true }
                attempt += 1
                try await publisher.publish(
                    to: "sightings/1/gw-a", payload: "after restart \(attempt)".bytes, qos: .atLeastOnce, retain: false)
                return nil
            }
            #expect(collector.messages.first?.payload.text.hasPrefix("after restart") == true)
            collector.stop()
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    @Test("a client whose first connect failed connects once the broker is there")
    func connectAgainAfterFailure() async throws {
        try await withBroker { broker in
            try await broker.stop()
            let client = MQTTClient(configuration: configuration(for: broker, clientID: "early-edge"), logger: testLogger)
            let error = await #expect(throws: MQTTError.self) { try await client.connect() }
            guard case .hostUnreachable(_, _, ECONNREFUSED, _) = error else {
                Issue.record("expected hostUnreachable, got \(String(describing: error))")
                return
            }
            try await broker.start()
            try await client.connect()
            #expect(client.isConnected)
            let subscription = try await client.subscribe(to: ["late/start"], qos: .atLeastOnce)
            try await client.publish(to: "late/start", payload: "up".bytes, qos: .atLeastOnce, retain: false)
            #expect(try await collect(1, from: subscription).first?.payload.text == "up")
            await client.disconnect()
        }
    }

    @Test("a clean disconnect after acknowledged publishes fails nothing and ends the streams")
    func cleanDisconnect() async throws {
        try await withBroker { broker in
            let subscriber = try await connectedClient(configuration(for: broker, clientID: "sub"))
            let subscription = try await subscriber.subscribe(to: ["clean/#"], qos: .exactlyOnce)
            let publisher = try await connectedClient(configuration(for: broker, clientID: "pub"))
            let events = publisher.connectionEvents()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await publisher.publish(
                            to: "clean/\(index)", payload: [UInt8(index)], qos: index.isMultiple(of: 2) ? .atLeastOnce : .exactlyOnce,
                            retain: false)
                    }
                }
                try await group.waitForAll()
            }
            await publisher.disconnect()
            #expect(try await nextEvent(events) == .closed)
            let messages = try await collect(100, from: subscription)
            #expect(Set(messages.map(\.topic)).count == 100)
            await #expect(throws: MQTTError.shutdown) {
                try await publisher.publish(to: "clean/late", payload: [], qos: .atMostOnce, retain: false)
            }
            await subscriber.disconnect()
            // The subscription's sequence ends after disconnect.
            let ended = try await withTimeout(readinessLimit, "subscription end") {
                for await _ in subscription {}
                return true
            }
            #expect(ended)
        }
    }

    @Test("disconnect fails a publish still waiting for its acknowledgement with shutdown")
    func disconnectFailsPending() async throws {
        try await withBroker { broker in
            let client = try await connectedClient(configuration(for: broker, clientID: "stuck"))
            broker.pause()
            defer { broker.resume() }
            let publishing = Task { () -> MQTTError? in
                do throws(MQTTError) {
                    try await client.publish(to: "stuck", payload: [1], qos: .atLeastOnce, retain: false)
                    return nil
                } catch {
                    return error
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            await client.disconnect()
            let error = try await withTimeout(readinessLimit, "pending publish") { await publishing.value }
            #expect(error == .shutdown)
        }
    }
}

extension ConnectionTests {
    @Test("disconnect returns while the broker is down and the client is reconnecting")
    func disconnectWhileBrokerDown() async throws {
        try await withBroker { broker in
            let client = try await connectedClient(configuration(for: broker, clientID: "orphan"))
            let subscription = try await client.subscribe(to: ["x/#"], qos: .atLeastOnce)
            let consuming = Task { for await _ in subscription {} }
            try await broker.stop()
            try await Task.sleep(for: .milliseconds(1500))
            try await withTimeout(readinessLimit, "disconnect with the broker down") { await client.disconnect() }
            try await withTimeout(readinessLimit, "subscription ends after disconnect") { await consuming.value }
        }
    }
}
