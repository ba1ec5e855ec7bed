import BeaconWire
import FuzzSupport

/// A topic string as the broker delivers it (any bytes; MQTT requires UTF-8, a broker may not
/// check), parsed under the default root and under a two-level one. Properties: no trap; a topic
/// that parses is exactly the string the scheme builds for the parsed value (one spelling per
/// topic, so ACLs and the parser cannot disagree); a refused topic gives a dead letter that decodes.
@main
enum FuzzTopics {
    static func main() { runFuzzer(testOneInput) }

    static let schemes = [TopicScheme.standard, try! TopicScheme(root: "acme/beaconnet")]  // valid literal roots

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = inputBytes(data, size)
        let topic = String(decoding: bytes, as: UTF8.self)
        for scheme in schemes {
            do throws(TopicError) {
                let parsed = try scheme.parse(topic)
                let built = scheme.string(for: parsed)
                guard built == topic else { violated("\(topic) parses as \(parsed), which is written \(built)") }
            } catch {
                let reject = Reject(topic: topic, error: error, time: 1_732_350_000_000, payload: bytes)
                let encoded = reject.encoded()
                guard let decoded = try? Reject.decode(encoded), decoded == reject else {
                    violated("the dead letter for topic error \"\(error)\" does not decode back:\n\(String(decoding: encoded, as: UTF8.self))")
                }
            }
        }
        return 0
    }
}
