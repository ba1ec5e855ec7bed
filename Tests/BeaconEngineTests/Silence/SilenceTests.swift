import Testing

/// Silence as evidence of leaving: a device nobody hears has gone, unless the gateways that would
/// hear it are not listening. Each nested suite takes one way gateways really report (long or
/// split windows, clocks off, outages, restarts) and shows that the rules neither keep a device
/// inside for ever nor exit one still there; ``Properties`` does the same over random gateways.
/// The live service's tick has its suite in BeaconAggregatorTests, under the same name.
@Suite("Silence")
enum SilenceTests {}
