/// A payload that names another store, section, device, gateway or aggregator than its topic:
/// refused (counted as unreadable, the health panel's last problem saying why), so that a
/// misconfigured or spoofed publisher cannot paint one store's numbers on another's plan, nor
/// have a state kept under one device and shown as another.
struct TopicMismatch: Error, CustomStringConvertible {
    let field: String
    let payload: String
    let topic: String
    var description: String { "\(field) \(payload) does not match the topic's \(topic)" }
}
