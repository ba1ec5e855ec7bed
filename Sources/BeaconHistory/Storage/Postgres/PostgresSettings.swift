import Logging
import PostgresNIO

/// The settings the data depends on (`history_settings`): the kind of device key, refused when
/// another is asked for, and the secret's fingerprint.
struct PostgresSettings {
    let location: PostgresLocation
    let logger: Logger

    /// Records the kind of device key (refusing another) and the fingerprint; returns whether
    /// the fingerprint changed.
    func check(_ connection: PostgresConnection, deviceKeys: String, secretFingerprint: String?) async throws -> Bool {
        let stored = try await connection.withTransaction(logger: logger) { connection -> (String?, String?) in
            let keys = try await value(of: "device_keys", connection)
            let fingerprint = try await value(of: "secret_fingerprint", connection)
            guard keys == nil || keys == deviceKeys else { return (keys, fingerprint) }
            if keys == nil {
                try await connection.query("""
                    INSERT INTO history_settings (key, value) VALUES ('device_keys', \(deviceKeys)) ON CONFLICT (key) DO NOTHING
                    """, logger: logger)
            }
            if let secretFingerprint {
                try await connection.query("""
                    INSERT INTO history_settings (key, value) VALUES ('secret_fingerprint', \(secretFingerprint))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, logger: logger)
            }
            return (keys, fingerprint)
        }
        if let keys = stored.0, keys != deviceKeys {
            throw HistoryDatabaseError.deviceKeysDiffer(path: location.description, stored: keys, asked: deviceKeys)
        }
        return stored.1 != nil && secretFingerprint != nil && stored.1 != secretFingerprint
    }

    private func value(of key: String, _ connection: PostgresConnection) async throws -> String? {
        var value: String?
        for try await text in try await connection.query("SELECT value FROM history_settings WHERE key = \(key)", logger: logger).decode(String.self) {
            value = text
        }
        return value
    }
}
