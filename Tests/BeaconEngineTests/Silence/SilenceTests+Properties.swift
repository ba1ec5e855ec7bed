import Testing

extension SilenceTests {
    /// Random gateways against the promises of the silence rules, over many seeds (see
    /// ``SilenceRun``): a device is never exited while a batch that carries it is still on its
    /// way, and every device exits once nobody hears it.
    @Suite("Properties under random gateways")
    struct Properties {
        @Test("no exit while a device is heard; every device exits once it is not", arguments: 0..<300)
        func steadyGateways(_ seed: Int) throws {
            try SilenceRun.steady(seed: seed)?.checkSteady()
        }

        @Test("no exit while a batch still carrying the device is on its way; one enter and one exit per visit; every device exits",
              arguments: 0..<200)
        func failingGateways(_ seed: Int) throws {
            try SilenceRun.failing(seed: seed, brokerOutage: false)?.checkFailing()
        }

        @Test("the same with a chain-wide broker outage and a staggered reconnect", arguments: 0..<200)
        func throughBrokerOutage(_ seed: Int) throws {
            try SilenceRun.failing(seed: seed, brokerOutage: true)?.checkFailing()
        }
    }
}
