/// The rules `tuning.rule` names.
enum SectionRules {
    /// The configured rule, ready for the chain's devices. Adding a rule: its file and a case here.
    static func make(for chain: Chain) -> any SectionRule {
        switch chain.tuning.rule {
        case .hysteresis: HysteresisRule(chain: chain)
        case .hmm: HMMRule(chain: chain)
        case .nearest: NearestRule()
        case .strongest: StrongestRule()
        case .fingerprint: FingerprintRule(chain: chain)
        case .position: PositionRule(chain: chain)
        }
    }
}
