/// A fresh link as the likelihoods read it: the gateway's index among its store's gateways, the
/// filtered RSSI and its variance, dB and dB², and the advert's measured power, dBm.
typealias FreshLink = (g: Int, x: Double, variance: Double, power: Double)
/// A gateway of the store that did not hear the device, and the level below which it would not
/// have (its reception floor, dBm): a censored reading.
typealias MissedGateway = (g: Int, floor: Double)
