import Foundation

/// The API's JSON, for the routes' responses and the event stream alike: snake_case keys,
/// sorted, so that answers are stable for tests and diffs.
enum DashboardJSON {
    /// A new encoder with the API's settings (`JSONEncoder` is not `Sendable`: one per use).
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as JSON text. Throws when a number cannot be written in JSON (NaN, infinity).
    static func text(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }
}
