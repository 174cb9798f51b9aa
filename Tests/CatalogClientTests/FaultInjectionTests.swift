import CatalogClient
import CatalogModel
import CatalogServer
import CatalogStore
import Foundation
import Hummingbird
import Testing

/// Seeded runs of a device against a live server through a proxy that fails at random — HTML
/// 404s and 502s, a proxy's 413 for several writes, answers lost after the server applied the
/// write, requests sent twice — while the device makes random moves on two catalogues and
/// follows random subsets of them. After the faults stop and the outbox drains, for every run:
/// each of the device's writes was applied exactly once (the server's revisions count them:
/// only the device writes), none was rejected, and the copies equal the server's catalogues.
/// Not yet in these runs: `kill -9` of the device, a restored server, a copied device database
/// (each has its own test).
@Suite struct FaultInjectionTests {
    static let catalogues = ["left", "right"]

    /// Reproducible random numbers (SplitMix64).
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The proxy's random choices, drawn under a lock (requests arrive concurrently).
    final class Faults: @unchecked Sendable {
        private let lock = NSLock()
        private var random: Seeded
        private var on = true
        init(seed: UInt64) { random = Seeded(state: seed ^ 0xFA17) }
        func stop() { lock.withLock { on = false } }

        func decide(_ seen: FaultProxy.Seen) -> FaultProxy.Fault {
            lock.withLock {
                guard on else { return .pass }
                let roll = Int.random(in: 0..<100, using: &random)
                if seen.path.contains("/events") {
                    return roll < 20 ? .answer(FaultProxy.html(roll < 10 ? .notFound : .badGateway)) : .pass
                }
                guard seen.method == "POST" else { return .pass }
                if seen.path.hasSuffix("/writes") && roll < 30 { return .answer(FaultProxy.html(.contentTooLarge)) }
                switch roll {
                case 30..<45: return .answer(FaultProxy.html(.badGateway))
                case 45..<60: return .loseAnswer(FaultProxy.html(.badGateway))
                case 60..<70: return .duplicate
                case 70..<75: return .answer(FaultProxy.html(.notFound))
                default: return .pass
                }
            }
        }
    }

    /// The writes the device made, by catalogue.
    final class Made: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func add(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }
        var all: [String: Int] { lock.withLock { counts } }
    }

    /// A random move that changes the catalogue: a random book to another shelf, at a random place.
    static func randomMove(in catalog: Catalog, using random: inout Seeded) -> (item: String, section: String, index: Int)? {
        let books = catalog.sections.flatMap { section in section.items.map { (section.id, $0.id) } }
        guard let (from, item) = books.randomElement(using: &random),
              let target = catalog.sections.filter({ $0.id != from && $0.items.count < ($0.capacity ?? .max) }).randomElement(using: &random)
        else { return nil }
        return (item, target.id, Int.random(in: 0...target.items.count, using: &random))
    }

    static func shelves(_ name: String) -> Catalog {
        var catalog = FollowingTests.shelves
        catalog.name = name
        for index in catalog.sections.indices { catalog.sections[index].capacity = 100 }
        return catalog
    }

    /// One seeded run; returns a description of what broke, or nil.
    static func run(seed: UInt64) async throws -> String? {
        let server = try CatalogStore.inMemory()
        for name in catalogues { try server.replace(shelves(name)) }
        let (device, _) = try FollowingTests.deviceStore()
        let faults = Faults(seed: seed)
        let counted = Made()
        var problem: String?
        try await FollowingTests.serving(server) { url in
            try await FaultProxy.run(toCurrent: { url }, deciding: { faults.decide($0) }) { proxy in
                var random = Seeded(state: seed)
                // The first copies, then rounds of offline moves and runs that follow a subset.
                try await sync(device, proxy, catalogues) { try copies(device, server, catalogues) }
                for _ in 0..<3 {
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        let name = catalogues.randomElement(using: &random)!
                        guard let move = randomMove(in: try device.catalog(named: name), using: &random) else { continue }
                        try await device.move(item: move.item, toSection: move.section, index: move.index, in: name)
                        counted.add(name)
                    }
                    let subset = catalogues.filter { _ in Bool.random(using: &random) }
                    let following = subset.isEmpty ? [catalogues[0]] : subset
                    try await sync(device, proxy, following) { try drained(device, following) }
                }
                faults.stop()
                try await sync(device, proxy, catalogues) { try drained(device, catalogues) && copies(device, server, catalogues) }
            }
        }
        // The oracle.
        let made = counted.all
        let rejected = try device.outbox().filter { $0.state == .rejected }
        if !rejected.isEmpty { problem = "rejected: \(rejected)" }
        for name in catalogues {
            let revision = try server.revision(of: name)
            if revision != 1 + made[name, default: 0] {
                problem = (problem ?? "") + " \(name): server at revision \(revision), device made \(made[name, default: 0]) writes"
            }
        }
        if !(try copies(device, server, catalogues)) { problem = (problem ?? "") + " copies differ" }
        try device.checkIntegrity()
        try server.checkIntegrity()
        return problem
    }

    static func sync(_ device: CatalogStore, _ url: URL, _ catalogs: [String], until done: () throws -> Bool) async throws {
        let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(2), atMost: .milliseconds(20))
        let task = Task { try await client.run(following: catalogs) }
        defer { task.cancel() }
        try await FollowingTests.eventually("the run following \(catalogs)", done)
        task.cancel()
        _ = await task.result
    }

    static func drained(_ device: CatalogStore, _ names: [String]) throws -> Bool {
        try names.allSatisfy { name in try device.outbox(of: name).allSatisfy { $0.state == .rejected } }
            && (try device.followedCatalogs().filter { names.contains($0.name) }.allSatisfy { $0.serverRevision > 0 })
    }

    static func copies(_ device: CatalogStore, _ server: CatalogStore, _ names: [String]) throws -> Bool {
        try names.allSatisfy { name in
            guard let copy = try? device.catalog(named: name) else { return false }
            return try copy.sections == server.catalog(named: name).sections
        }
    }

    /// 50 seeded runs (`CATALOG_FAULT_SEEDS=N` for N, from `CATALOG_FAULT_FIRST_SEED`;
    /// `CATALOG_FAULT_SEED=S` for one: `Scripts/fault-runs.sh`); each failure names its seed.
    @Test(.timeLimit(.minutes(60))) func seededRunsLoseNoWrite() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds: [UInt64] = if let one = environment["CATALOG_FAULT_SEED"].flatMap(UInt64.init) { [one] } else {
            (0..<UInt64(max(1, environment["CATALOG_FAULT_SEEDS"].flatMap(Int.init) ?? 50))).map {
                (environment["CATALOG_FAULT_FIRST_SEED"].flatMap(UInt64.init) ?? 1) + $0
            }
        }
        for seed in seeds {
            if let problem = try await Self.run(seed: seed) {
                Issue.record("seed \(seed): \(problem) (again: CATALOG_FAULT_SEED=\(seed) swift test --filter FaultInjectionTests)")
            }
        }
    }
}
