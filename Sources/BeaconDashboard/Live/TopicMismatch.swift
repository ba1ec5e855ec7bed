/// A payload that names another store or section than its topic: refused, so that a
/// misconfigured or spoofed publisher cannot paint one store's numbers on another's plan.
struct TopicMismatch: Error, CustomStringConvertible {
    let field: String
    let payload: String
    let topic: String
    var description: String { "\(field) \(payload) does not match the topic's \(topic)" }
}
