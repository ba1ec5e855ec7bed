public import BeaconCore

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

        public init(name: String, address: String, standby: String? = nil, stores: String, aggregator: String) {
            self.name = name
            self.address = address
            self.standby = standby
            self.stores = stores
            self.aggregator = aggregator
        }

        /// Reads a shard's object; nil where a required value cannot be used (reported).
        init?(reading o: inout ConfigObject) {
            let name = o.required("name", as: String.self)
            let address = o.required("address", as: String.self)
            let standby = o.optional("standby", as: String.self)
            let stores = o.required("stores", as: String.self)
            let aggregator = o.required("aggregator", as: String.self)
            o.comment()
            guard let name, let address, let stores, let aggregator else { return nil }
            self.init(name: name, address: address, standby: standby, stores: stores, aggregator: aggregator)
        }
    }

    /// The problems of ``central``, each with its JSON path: addresses, names, store ranges that
    /// do not parse or overlap, stores of the config in no shard, aggregators named twice.
    func validateCentral(into issues: inout [ConfigIssue]) {
        guard let central else { return }
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        if let problem = Self.addressProblem(central.hub) { issue("$.central.hub", problem) }
        if central.shards.isEmpty { issue("$.central.shards", "no shard is listed") }
        var names: [String: Int] = [:], aggregators: [String: Int] = [:]
        var owner: [Int: Int] = [:]
        var overlaps: [String: [Int]] = [:]
        for (i, shard) in central.shards.enumerated() {
            let path = "$.central.shards[\(i)]"
            if shard.name.isEmpty { issue("\(path).name", "the shard has no name") }
            if let first = names[shard.name] { issue("\(path).name", "\"\(shard.name)\" is already the name of shards[\(first)]") } else { names[shard.name] = i }
            if let problem = Self.addressProblem(shard.address) { issue("\(path).address", problem) }
            if let standby = shard.standby {
                if let problem = Self.addressProblem(standby) { issue("\(path).standby", problem) }
                if standby == shard.address { issue("\(path).standby", "is the shard's own address: a standby is another broker") }
            }
            do {
                _ = try AggregatorID(shard.aggregator)
            } catch {
                issue("\(path).aggregator", "\(error)")
            }
            if let first = aggregators[shard.aggregator] {
                issue("\(path).aggregator", "\(shard.aggregator) already reads shards[\(first)]: one aggregator per shard (its --stores are the shard's)")
            } else {
                aggregators[shard.aggregator] = i
            }
            let selection: StoreSelection
            do {
                selection = try StoreSelection(parsing: shard.stores)
            } catch {
                issue("\(path).stores", "\"\(error.part)\" is not a store number or range (0–65535, e.g. 1-700,901)")
                continue
            }
            for store in stores.map(\.major) where selection.contains(StoreNumber(clamping: store)) {
                if let first = owner[store] { overlaps["shards[\(first)] and shards[\(i)]", default: []].append(store) } else { owner[store] = i }
            }
        }
        for (pair, stores) in overlaps.sorted(by: { $0.key < $1.key }) {
            issue("$.central.shards", "store(s) \(Self.listed(stores)) are in \(pair): each store bridges to one shard")
        }
        let homeless = stores.map(\.major).filter { owner[$0] == nil }
        if !homeless.isEmpty, !central.shards.isEmpty {
            issue("$.central.shards", "store(s) \(Self.listed(homeless)) are in no shard: no aggregator would decide them")
        }
    }

    /// Why `text` is not a `HOST:PORT` (`[IPv6]:PORT` too); nil when it is.
    static func addressProblem(_ text: String) -> String? {
        let host: Substring, port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") {
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            return "\"\(text)\" is not HOST:PORT (e.g. shard-1.beaconnet.example:8883)"
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }), !(host.contains(":") && !text.hasPrefix("[")) else {
            return "\"\(text)\" is not HOST:PORT (e.g. shard-1.beaconnet.example:8883; [2001:db8::1]:8883)"
        }
        guard let number = Int(port), (1...65535).contains(number) else { return "\"\(text)\": the port is not 1…65535" }
        return nil
    }

    /// `stores` for a message: the first 20, then how many more.
    static func listed(_ stores: [Int]) -> String {
        stores.prefix(20).map(String.init).joined(separator: ", ") + (stores.count > 20 ? " and \(stores.count - 20) more" : "")
    }
}
