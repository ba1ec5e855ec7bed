/// The body of every API error: a code for programs and a sentence for people.
struct APIError: Codable, Sendable, Equatable {
    /// `unknown_store`, `bad_store`, `unknown_device`, `bad_device`, `not_found`.
    var error: String
    /// What was wrong and what is known instead.
    var message: String
}
