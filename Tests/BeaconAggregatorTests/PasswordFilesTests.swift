import Testing
@testable import BeaconAggregator

@Suite("Aggregator: the publishing login's password file beside the sightings login's")
struct PasswordFilesTests {
    @Test("the installed layout's agg-1-out.password first, then the path with -out appended")
    func siblings() {
        #expect(PasswordFiles.publishingSiblings(of: "/etc/beaconnet/agg-1.password")
            == ["/etc/beaconnet/agg-1-out.password", "/etc/beaconnet/agg-1.password-out"])
        #expect(PasswordFiles.publishingSiblings(of: "creds/passwords/agg-1").last == "creds/passwords/agg-1-out")
        #expect(PasswordFiles.publishingSiblings(of: "creds/passwords/agg-1").count == 1)
    }
}
