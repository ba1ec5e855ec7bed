import BeaconCore
import BeaconWire
import Foundation

extension EdgeConfig {
    /// Reads the config's root object, the flags already laid over it (`flags`: the JSON path
    /// each set, with the flag's name); nil where it cannot be used (every problem reported).
    init?(reading o: inout ConfigObject, flags: [String: String]) {
        let gateway = Self.gatewayID(&o)
        let store = o.required("store", expecting: "an integer")?.integer(in: 0...65535)
        let section = o.required("section", expecting: "an integer")?.integer(in: 0...65535)
        let broker = o.member("broker")?.object { Broker(reading: &$0, flags: flags) } ?? Broker()
        let scan = Scan(reading: o.member("scan"), in: o.value)
        let allowList = AllowList(reading: &o)
        let window = o.member("batch_window_ms")?.integer(in: 10...60_000)
        let buffer = o.member("buffer")?.object { Buffer(reading: &$0) } ?? Buffer()
        let statusInterval = o.member("status_interval_s")?.integer(in: 1...3600)
        let topicRoot = Self.topicRoot(o.member("topic_root"))
        let includeAddress = o.optional("include_address", as: Bool.self)
        o.comment()
        guard let gateway, let store, let section else { return nil }
        self.init(
            gateway: gateway, store: StoreNumber(store), section: SectionNumber(section), broker: broker, scan: scan,
            allowList: allowList, batchWindowMilliseconds: window ?? 1000, buffer: buffer, statusIntervalSeconds: statusInterval ?? 30,
            topicRoot: topicRoot, includeAddress: includeAddress ?? false)
    }

    /// `$.gateway`, which is required.
    static func gatewayID(_ o: inout ConfigObject) -> GatewayID? {
        guard let value = o.required("gateway", expecting: "a string", hint: "this gateway's id, gw- followed by a-z, 0-9 or -"),
              let text = nonEmpty(value) else { return nil }
        do {
            return try GatewayID(text)
        } catch {
            value.report("\(error)")
            return nil
        }
    }

    /// `$.topic_root`, when it makes a valid topic scheme.
    static func topicRoot(_ value: ConfigValue?) -> String {
        guard let value, let text = nonEmpty(value) else { return TopicScheme.defaultRoot }
        do {
            _ = try TopicScheme(root: text)
            return text
        } catch {
            value.report("\(error)")
            return TopicScheme.defaultRoot
        }
    }

    /// A string that must not be empty.
    static func nonEmpty(_ value: ConfigValue) -> String? {
        guard let text = value.read(String.self) else { return nil }
        guard !text.isEmpty else {
            value.report("must not be empty")
            return nil
        }
        return text
    }

    /// Reports `file` at `value` when it cannot be read.
    static func checkReadable(_ file: String?, at value: ConfigValue?) {
        guard let file, let value, !FileManager.default.isReadableFile(atPath: file) else { return }
        value.report("cannot read \(file) (missing or not readable)")
    }
}

extension EdgeConfig.Broker {
    /// `$.broker`, its password read from `password_file`.
    init(reading o: inout ConfigObject, flags: [String: String]) {
        self.init()
        host = o.member("host").flatMap(EdgeConfig.nonEmpty) ?? host
        port = o.member("port")?.integer(in: 1...65535) ?? port
        clientID = o.member("client_id").flatMap(EdgeConfig.nonEmpty)
        username = o.member("username").flatMap(EdgeConfig.nonEmpty)
        let passwordValue = o.member("password_file")
        passwordFile = passwordValue.flatMap(EdgeConfig.nonEmpty)
        keepAliveSeconds = o.member("keep_alive_s")?.integer(in: 5...3600) ?? 30
        mqttVersion = o.member("mqtt_version")?.choice(MQTTVersion.self) ?? .v5
        if let file = passwordFile, let passwordValue {
            if username == nil { passwordValue.report("needs broker.username (or --username)") }
            if let data = FileManager.default.contents(atPath: file) {
                var text = String(decoding: data, as: UTF8.self)
                while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
                password = text
            } else {
                passwordValue.report("cannot read \(file) (missing or not readable)")
            }
        }
        tls = o.member("tls")?.object { EdgeConfig.TLS(reading: &$0, flags: flags) }
    }
}

extension EdgeConfig.TLS {
    /// `$.broker.tls`: the CA is required, a client certificate and key go together, all readable.
    init?(reading o: inout ConfigObject, flags: [String: String]) {
        let given = [flags["$.broker.tls.cert_file"], flags["$.broker.tls.key_file"]].compactMap { $0 }
        let caValue = o.required("ca_file", expecting: "a string", hint: given.isEmpty ? "TLS needs the CA that signed the broker's certificate" : "\(given.joined(separator: " and ")) given; add --tls-ca")
        let ca = caValue.flatMap(EdgeConfig.nonEmpty)
        let certValue = o.member("cert_file"), keyValue = o.member("key_file")
        let cert = certValue.flatMap(EdgeConfig.nonEmpty), key = keyValue.flatMap(EdgeConfig.nonEmpty)
        if (cert == nil) != (key == nil) {
            o.value.report("cert_file and key_file go together: give both or neither")
        }
        EdgeConfig.checkReadable(ca, at: caValue)
        EdgeConfig.checkReadable(cert, at: certValue)
        EdgeConfig.checkReadable(key, at: keyValue)
        guard let ca else { return nil }
        self.init(caFile: ca, certFile: cert, keyFile: key)
    }
}

extension EdgeConfig.Scan {
    /// `$.scan`: the adapter (checked even when the default), its interval and window.
    init(reading value: ConfigValue?, in root: ConfigValue) {
        self.init()
        let read = value?.object { (o: inout ConfigObject) -> Self? in
            var scan = Self()
            scan.adapter = o.member("adapter").flatMap(EdgeConfig.nonEmpty) ?? scan.adapter
            scan.intervalMilliseconds = o.member("interval_ms")?.number(in: 2.5...10240) ?? 100
            let window = o.member("window_ms")
            scan.windowMilliseconds = window?.number(in: 2.5...10240) ?? 100
            if scan.windowMilliseconds > scan.intervalMilliseconds {
                window?.report("must not exceed scan.interval_ms (\(JSONNode.text(of: scan.intervalMilliseconds)))")
            }
            return scan
        }
        self = read ?? self
        if !adapter.hasPrefix("hci") || Int(adapter.dropFirst(3)) == nil {
            root.reader.report("must be a BlueZ adapter name such as hci0, got \(adapter)", at: root.path.appending("scan").appending("adapter"),
                               root.node["scan"]?["adapter"]?.location)
        }
    }
}

extension EdgeConfig.Buffer {
    /// `$.buffer`: `memory_batches` only with a spill file.
    init(reading o: inout ConfigObject) {
        self.init()
        maxBatches = o.member("max_batches")?.integer(in: 1...1_000_000) ?? 3600
        spillFile = o.member("spill_file").flatMap(EdgeConfig.nonEmpty)
        let memory = o.member("memory_batches")
        memoryBatches = memory?.integer(in: 1...maxBatches) ?? min(60, maxBatches)
        if let memory, spillFile == nil {
            memory.report("only applies with buffer.spill_file (without one every batch stays in memory)")
        }
    }
}

extension AllowList {
    /// `$.allow_all` and `$.allow_list`: exactly one of the two.
    init(reading o: inout ConfigObject) {
        let allowAll = o.optional("allow_all", as: Bool.self) ?? false
        self.init(allowAll: allowAll)
        let listValue = o.member("allow_list")
        let before = listValue?.reader.issues.count ?? 0
        let read = listValue?.object { (list: inout ConfigObject) -> Self? in
            var allow = AllowList(allowAll: allowAll)
            allow.iBeaconUUIDs = Self.list(list.member("ibeacon_uuids"), what: "a UUID", UUID128.init)
            allow.eddystoneNamespaces = Self.list(list.member("eddystone_namespaces"), what: "20 hex digits", EddystoneNamespace.init(hex:))
            allow.altBeaconIDs = Self.list(list.member("altbeacon_ids"), what: "a UUID", UUID128.init)
            return allow
        }
        self = read ?? self
        let listFailed = (listValue?.reader.issues.count ?? 0) > before
        if allowAll && !isEmpty {
            o.member("allow_all")?.report("true publishes everything, so allow_list must be empty; keep one of the two")
        } else if !allowAll && isEmpty && !listFailed {
            o.value.reader.report(
                "is empty: list the chain's iBeacon UUIDs (ibeacon_uuids), Eddystone namespaces or AltBeacon ids, or set \"allow_all\": true to publish every device (strangers' phones included)",
                at: o.value.path.appending("allow_list"), listValue?.node.location)
        }
    }

    /// An array of strings each `parse` turns into a `T`, reported where one does not.
    static func list<T>(_ value: ConfigValue?, what: String, _ parse: (String) -> T?) -> [T] {
        guard let value else { return [] }
        return value.array { item in
            guard case .string(let text) = item.node.value, let element = parse(text) else {
                item.report("must be \(what), got \(item.node.summary)")
                return nil
            }
            return element
        } ?? []
    }
}
