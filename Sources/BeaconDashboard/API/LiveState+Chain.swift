import BeaconCore

// The chain overview's lines, made under the store's lock from plain values.
extension LiveState {
    /// Every known store with its line and its health, judged from `health`, by store number.
    func judgedStores(health: HealthView) -> [ChainSnapshot.JudgedStore] {
        let judge = StoreHealthJudge(health)
        var sectionsCounted: [StoreNumber: Int] = [:]
        for ref in sectionCounts.keys { sectionsCounted[ref.store, default: 0] += 1 }
        return knownStores.map { store in
            let verdict = judge.judge(store)
            let layout = layouts[store]
            let total = storeCounts[store]
            let line = ChainView.Store(
                major: store, name: layout?.name ?? total?.name ?? "store \(store)", hasLayout: layout != nil,
                count: total?.count, countTime: total?.time, sections: layout?.sections.count ?? sectionsCounted[store] ?? 0,
                gateways: verdict.gateways, gatewaysOffline: verdict.offline.count, gatewaysUnknown: verdict.unknown,
                aggregators: verdict.serving, health: verdict.level.name, problems: verdict.problems)
            return ChainSnapshot.JudgedStore(line: line, health: verdict)
        }
    }
}
