public import BeaconCore
import Crypto
import Foundation

/// Turns device ids into pseudonyms: HMAC-SHA256 keyed with the period's key, itself
/// HMAC-SHA256 of the period's name under the chain secret, cut to 128 bits and written as 32
/// lowercase hex digits. The same device has the same pseudonym throughout one period (so its
/// visits that day can be counted as one device's) and unrelated ones in two periods.
public struct Pseudonymizer: Sendable {
    /// How long a pseudonym lasts.
    public let period: PseudonymPeriod
    private let secret: SymmetricKey

    /// Pseudonyms under `secret`, rotated every `period`.
    public init(secret: PseudonymSecret, period: PseudonymPeriod) {
        self.secret = SymmetricKey(data: secret.bytes)
        self.period = period
    }

    /// The key of period `index`: derived, never stored, so nothing on disk links two periods.
    func periodKey(_ index: Int64) -> SymmetricKey {
        let label = Array("beaconnet-history pseudonym \(period.rawValue) \(index)".utf8)
        return SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: label, using: secret)))
    }

    /// `device`'s pseudonym in period `index`.
    public func pseudonym(of device: DeviceID, period index: Int64) -> String {
        pseudonym(of: device, key: periodKey(index))
    }

    /// `device`'s pseudonym under a period key from ``periodKey(_:)``.
    func pseudonym(of device: DeviceID, key: SymmetricKey) -> String {
        pseudonym(of: device.rawValue, key: key)
    }

    /// The first 128 bits of the HMAC of `text` under `key`, in hex.
    private func pseudonym(of text: String, key: SymmetricKey) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in code.prefix(16) {
            text.append(Self.hexDigits[Int(byte >> 4)])
            text.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A short fingerprint of the secret (not of any device), kept in the database to notice a
    /// secret that changed between runs: the open visits could not be matched to their devices.
    public var secretFingerprint: String {
        pseudonym(of: Self.fingerprintLabel, key: secret)
    }

    /// The label whose HMAC under the bare secret is its fingerprint: not the shape of any device
    /// id, so no device's pseudonym is ever the fingerprint.
    private static let fingerprintLabel = "beaconnet-history-secret-fingerprint"
}
