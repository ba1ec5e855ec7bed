/// How near a device is to the gateway that hears it best, as Core Location's `CLProximity`.
public enum Proximity: String, Sendable, CaseIterable, Codable {
    /// Under half a metre.
    case immediate
    /// Under three metres.
    case near
    /// Three metres or more.
    case far
    /// Not enough signal to say.
    case unknown
}
