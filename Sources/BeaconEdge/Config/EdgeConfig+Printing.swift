import BeaconCore

extension EdgeConfig {
    /// The effective config in the file's format, every default written out, for `--print-config`.
    /// The password itself is never shown, only where it comes from.
    public var json: JSONValue {
        var broker: [(key: String, value: JSONValue)] = [
            ("host", .string(self.broker.host)), ("port", .int(Int64(self.broker.port))),
            ("keep_alive_s", .int(Int64(self.broker.keepAliveSeconds))), ("mqtt_version", .string(self.broker.mqttVersion.rawValue)),
        ]
        // The client id defaults to the gateway id; written only when set, so the output loads
        // back to the same config.
        if let clientID = self.broker.clientID { broker.append(("client_id", .string(clientID))) }
        if let username = self.broker.username { broker.append(("username", .string(username))) }
        if let file = self.broker.passwordFile { broker.append(("password_file", .string(file))) }
        if let tls = self.broker.tls {
            var members: [(key: String, value: JSONValue)] = [("ca_file", .string(tls.caFile))]
            if let cert = tls.certFile { members.append(("cert_file", .string(cert))) }
            if let key = tls.keyFile { members.append(("key_file", .string(key))) }
            broker.append(("tls", .object(members)))
        }
        var buffer: [(key: String, value: JSONValue)] = [("max_batches", .int(Int64(self.buffer.maxBatches)))]
        if let spill = self.buffer.spillFile {
            buffer.append(("spill_file", .string(spill)))
            buffer.append(("memory_batches", .int(Int64(self.buffer.memoryBatches))))
        }
        return .object([
            ("gateway", .string(gateway.rawValue)),
            ("store", .int(Int64(store))),
            ("section", .int(Int64(section))),
            ("broker", .object(broker)),
            ("scan", .object([
                ("adapter", .string(scan.adapter)),
                ("interval_ms", .double(scan.intervalMilliseconds)),
                ("window_ms", .double(scan.windowMilliseconds)),
            ])),
            ("allow_all", .bool(allowList.allowAll)),
            ("allow_list", .object([
                ("ibeacon_uuids", .array(allowList.iBeaconUUIDs.map { .string($0.uuidString) })),
                ("eddystone_namespaces", .array(allowList.eddystoneNamespaces.map { .string($0.description) })),
                ("altbeacon_ids", .array(allowList.altBeaconIDs.map { .string($0.uuidString) })),
            ])),
            ("batch_window_ms", .int(Int64(batchWindowMilliseconds))),
            ("buffer", .object(buffer)),
            ("status_interval_s", .int(Int64(statusIntervalSeconds))),
            ("topic_root", .string(topicRoot)),
            ("include_address", .bool(includeAddress)),
        ])
    }
}
