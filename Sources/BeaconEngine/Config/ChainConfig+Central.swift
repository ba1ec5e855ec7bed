import BeaconCore

extension ChainConfig {
    /// `central` (optional): the central tier split in shards (docs/SCALING.md) — which shard
    /// broker and which aggregator serve each store, and the output hub. The programs take their
    /// brokers from their flags; this is the deployment's record of them, checked against the
    /// stores and printed by `check-config`.
    public struct Central: Encodable, Sendable, Equatable {
        /// `hub`: the output hub, `HOST:PORT`.
        public var hub: String
        /// `shards`: each shard and the stores it carries.
        public var shards: [Shard]

        public init(hub: String, shards: [Shard]) {
            self.hub = hub
            self.shards = shards
        }

        /// Reads `central`; nil where a required value cannot be used (reported).
        init?(reading o: inout ConfigObject) {
            let hub = o.required("hub", as: String.self)
            let shards = o.required("shards", expecting: "an array")?.array { $0.object { Shard(reading: &$0) } }
            o.comment()
            guard let hub, let shards else { return nil }
            self.init(hub: hub, shards: shards)
        }

        /// The shard whose `stores` hold `store`, if any.
        public func shard(of store: Int) -> Shard? {
            shards.first { shard in (try? StoreSelection(parsing: shard.stores))?.ranges.contains { $0.contains(store) } == true }
        }
    }

    /// One shard of the central tier: a broker (and its standby) that the stores of `stores`
    /// bridge to, and the aggregator that reads it (`--stores` the same ranges).
    public struct Shard: Encodable, Sendable, Equatable {
        /// `name`: how the deployment calls it.
        public var name: String
        /// `address`: the shard broker, `HOST:PORT` (the first address of each store's bridge).
        public var address: String
        /// `standby` (optional): its standby, `HOST:PORT` (the bridge's second address).
        public var standby: String?
        /// `stores`: the stores it carries, numbers and ranges (`1-700,901`).
        public var stores: String
        /// `aggregator`: the id of the aggregator that reads it.
        public var aggregator: String
        /// `standby_aggregator` (optional, with `standby`): the id of the aggregator that reads the
        /// standby broker and takes the shard's stores over when `aggregator` goes
        /// (`--standby-for`).
        public var standbyAggregator: String?

        enum CodingKeys: String, CodingKey {
            case name, address, standby, stores, aggregator
            case standbyAggregator = "standby_aggregator"
        }

        public init(name: String, address: String, standby: String? = nil, stores: String, aggregator: String, standbyAggregator: String? = nil) {
            self.name = name
            self.address = address
            self.standby = standby
            self.stores = stores
            self.aggregator = aggregator
            self.standbyAggregator = standbyAggregator
        }

        /// Reads a shard's object; nil where a required value cannot be used (reported).
        init?(reading o: inout ConfigObject) {
            let name = o.required("name", as: String.self)
            let address = o.required("address", as: String.self)
            let standby = o.optional("standby", as: String.self)
            let stores = o.required("stores", as: String.self)
            let aggregator = o.required("aggregator", as: String.self)
            let standbyAggregator = o.optional("standby_aggregator", as: String.self)
            o.comment()
            guard let name, let address, let stores, let aggregator else { return nil }
            self.init(name: name, address: address, standby: standby, stores: stores, aggregator: aggregator, standbyAggregator: standbyAggregator)
        }
    }

    /// The problems of ``central``, each with its JSON path: addresses, names, store ranges that
    /// do not parse or that overlap (whether or not the config has stores there yet), stores of
    /// the config in no shard, aggregators named twice.
    func validateCentral(into issues: inout [ConfigIssue]) {
        guard let central else { return }
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        if let problem = Self.addressProblem(central.hub) { issue("$.central.hub", problem) }
        if central.shards.isEmpty { issue("$.central.shards", "no shard is listed") }
        var names: [String: Int] = [:], aggregators: [String: Int] = [:]
        var selections: [(Int, StoreSelection)] = []
        for (i, shard) in central.shards.enumerated() {
            let path = "$.central.shards[\(i)]"
            if shard.name.isEmpty { issue("\(path).name", "the shard has no name") }
            if let first = names[shard.name] { issue("\(path).name", "\"\(shard.name)\" is already the name of shards[\(first)]") } else { names[shard.name] = i }
            if let problem = Self.addressProblem(shard.address) { issue("\(path).address", problem) }
            if let standby = shard.standby {
                if let problem = Self.addressProblem(standby) { issue("\(path).standby", problem) }
                if standby == shard.address { issue("\(path).standby", "is the shard's own address: a standby is another broker") }
            }
            for (field, message) in Self.aggregatorProblems(of: shard, at: i, reading: &aggregators) { issue("\(path).\(field)", message) }
            do {
                selections.append((i, try StoreSelection(parsing: shard.stores)))
            } catch {
                issue("\(path).stores", "\"\(error.part)\" is not a store number or range (0–65535, e.g. 1-700,901)")
            }
        }
        // Ranges that overlap, whether or not the config has a store there yet.
        for (a, (i, first)) in selections.enumerated() {
            for (j, second) in selections.dropFirst(a + 1) {
                let shared = first.ranges.flatMap { one in second.ranges.compactMap { other in one.overlaps(other) ? one.clamped(to: other) : nil } }
                guard !shared.isEmpty else { continue }
                let shown = shared.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
                issue("$.central.shards", "stores \(shown) are in shards[\(i)] and shards[\(j)]: each store bridges to one shard")
            }
        }
        let majors = Set(stores.map(\.major)).filter { (0...65535).contains($0) }.sorted()
        let homeless = majors.filter { major in !selections.contains { $0.1.ranges.contains { $0.contains(major) } } }
        if !homeless.isEmpty, !central.shards.isEmpty {
            issue("$.central.shards", "store(s) \(Self.listed(homeless)) are in no shard: no aggregator would decide them")
        }
    }

    /// The problems of shard `index`'s aggregator and standby aggregator (field, message): ids,
    /// and an aggregator that already reads another shard (`aggregators`: which shard each reads).
    static func aggregatorProblems(of shard: Shard, at index: Int, reading aggregators: inout [String: Int]) -> [(String, String)] {
        var problems: [(String, String)] = []
        do {
            _ = try AggregatorID(shard.aggregator)
        } catch {
            problems.append(("aggregator", "\(error)"))
        }
        if let first = aggregators[shard.aggregator] {
            problems.append(("aggregator", "\(shard.aggregator) already reads shards[\(first)]: one aggregator per shard (its --stores are the shard's)"))
        } else {
            aggregators[shard.aggregator] = index
        }
        guard let standbyAggregator = shard.standbyAggregator else { return problems }
        do {
            _ = try AggregatorID(standbyAggregator)
        } catch {
            problems.append(("standby_aggregator", "\(error)"))
        }
        if shard.standby == nil {
            problems.append(("standby_aggregator", "needs the shard's \"standby\": the standby aggregator reads the standby broker"))
        }
        if standbyAggregator == shard.aggregator {
            problems.append(("standby_aggregator", "is the shard's own aggregator: a standby is another instance, with its own id"))
        } else if let first = aggregators[standbyAggregator] {
            problems.append(("standby_aggregator", "\(standbyAggregator) already reads shards[\(first)]: one aggregator per shard"))
        } else {
            aggregators[standbyAggregator] = index
        }
        return problems
    }

    /// Why `text` is not a `HOST:PORT` (`[IPv6]:PORT` too); nil when it is.
    static func addressProblem(_ text: String) -> String? {
        let notAnAddress = "\"\(text)\" is not HOST:PORT (e.g. shard-1.beaconnet.example:8883; [2001:db8::1]:8883)"
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return notAnAddress }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":"), host.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else { return notAnAddress }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return notAnAddress }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
            else { return notAnAddress }
        }
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65535).contains(number)
        else { return "\"\(text)\": the port is not 1…65535" }
        return nil
    }

    /// `stores` for a message: the first 20, then how many more.
    static func listed(_ stores: [Int]) -> String {
        stores.prefix(20).map(String.init).joined(separator: ", ") + (stores.count > 20 ? " and \(stores.count - 20) more" : "")
    }
}
