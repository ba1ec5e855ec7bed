import BeaconEngine
import Testing
@testable import BeaconSim

/// The fading bound to a device's spot (``BoundFade``): kept while the device stands still and
/// faces one way, fresh once it moves half a wavelength or turns, nothing drawn at σ 0.
@Suite("Simulator: fading bound to a spot")
struct BoundFadeTests {
    let here = Chain.Point(x: 3, y: 4)

    @Test("a device standing still and facing one way keeps its fade; a few centimetres' sway keeps it too")
    func standing() {
        var fade = BoundFade(), random = SeededRandom(seed: 7)
        let first = fade.value(at: here, heading: 1, sigma: 3.5, &random)
        #expect(first != 0)
        for _ in 0..<50 { #expect(fade.value(at: here, heading: 1, sigma: 3.5, &random) == first) }
        #expect(fade.value(at: Chain.Point(x: 3.03, y: 4.03), heading: 1, sigma: 3.5, &random) == first)
    }

    @Test("moving half a wavelength or turning draws a fresh fade, spread as σ says")
    func renewed() {
        var random = SeededRandom(seed: 11)
        var moved: [Double] = [], turned: [Double] = []
        for step in 0..<2_000 {
            var fade = BoundFade()
            let start = fade.value(at: here, heading: 0, sigma: 3.5, &random)
            var walker = fade
            moved.append(walker.value(at: Chain.Point(x: 3 + BoundFade.renewDistance, y: 4), heading: 0, sigma: 3.5, &random) - start)
            turned.append(fade.value(at: here, heading: Double(step % 6 + 1), sigma: 3.5, &random) - start)
        }
        // Two independent draws of σ 3.5 differ with a spread of 3.5·√2 ≈ 4.9 dB.
        for differences in [moved, turned] {
            let spread = (differences.map { $0 * $0 }.reduce(0, +) / Double(differences.count)).squareRoot()
            #expect(abs(spread - 3.5 * 2.0.squareRoot()) < 0.3, "\(spread)")
            #expect(differences.filter { $0 == 0 }.isEmpty)
        }
    }

    @Test("at σ 0 it is 0 and draws nothing: the random stream goes on as without it")
    func zero() {
        var fade = BoundFade(), random = SeededRandom(seed: 3), untouched = SeededRandom(seed: 3)
        #expect(fade.value(at: here, heading: 0, sigma: 0, &random) == 0)
        #expect(random.next() == untouched.next())
    }
}
