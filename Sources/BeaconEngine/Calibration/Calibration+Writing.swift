import Foundation

extension Calibration {
    /// The calibration as the file `beacon-aggregator calibrate` writes: JSON that
    /// ``parse(_:)`` reads back to an equal value, one fingerprint per line so that a person can
    /// read a store's picture and a diff shows what a new walk changed; a store's outside
    /// fingerprints, when it has them, after its sections'.
    public func fileText() -> String {
        var lines = ["{"]
        if let comment { lines.append("  \"comment\": \(Self.quoted(comment)),") }
        lines.append("  \"stores\": [")
        for (i, store) in stores.enumerated() {
            lines.append("    {")
            lines.append("      \"major\": \(store.major),")
            if let change = store.walkingChange { lines.append("      \"walking_change_db2_per_s\": \(change),") }
            if let power = store.tagMeasuredPower { lines.append("      \"tag_measured_power_dbm\": \(power),") }
            if let offset = store.phonesOffset { lines.append("      \"phones_offset_db\": \(offset),") }
            lines.append("      \"fingerprints\": [")
            for (j, f) in store.fingerprints.enumerated() {
                var fields = [
                    "\"gateway\": \(Self.quoted(f.gateway))", "\"section\": \(f.section)", "\"mean_dbm\": \(f.meanDBm)",
                    "\"sd_db\": \(f.sdDB)", "\"heard\": \(f.heard)",
                ]
                if let samples = f.samples { fields.append("\"samples\": \(samples)") }
                lines.append("        { " + fields.joined(separator: ", ") + " }" + (j + 1 < store.fingerprints.count ? "," : ""))
            }
            if let outside = store.outside {
                lines.append("      ],")
                lines.append("      \"outside\": [")
                for (j, f) in outside.enumerated() {
                    var fields = ["\"gateway\": \(Self.quoted(f.gateway))", "\"mean_dbm\": \(f.meanDBm)", "\"sd_db\": \(f.sdDB)", "\"heard\": \(f.heard)"]
                    if let samples = f.samples { fields.append("\"samples\": \(samples)") }
                    lines.append("        { " + fields.joined(separator: ", ") + " }" + (j + 1 < outside.count ? "," : ""))
                }
            }
            lines.append("      ]")
            lines.append("    }" + (i + 1 < stores.count ? "," : ""))
        }
        lines.append("  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // A String always encodes.
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
