import Foundation

/// The API's JSON: snake_case keys, sorted, so that responses are stable for tests and diffs.
enum APIEncoding {
    /// `value` as JSON bytes. The views are plain structs of strings and numbers, so encoding
    /// cannot fail; if it ever did, the error is returned as JSON rather than a crash.
    static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            return Data(#"{"error":"encoding","message":"the dashboard could not encode this response"}"#.utf8)
        }
    }
}
