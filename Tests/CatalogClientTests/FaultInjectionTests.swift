import CatalogClient
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import Testing

/// Seeded runs of one to three devices against a live server through a proxy that fails at
/// random — HTML 404s and 502s, a proxy's 413 for several writes, answers lost after the server
/// applied the write, requests sent twice, connections dropped mid-answer, delays — while the
/// devices make random moves on two catalogues and follow random subsets of them; in some runs
/// the server is restored from a backup taken a round or two earlier (same identity, its
/// devices' records as they were), and in others a device's database is copied to a new device
/// (once or twice) that goes on writing — both in some runs. Each device moves only books of its
/// own, so no move of one is undone or emptied by another's. After the faults stop and the
/// outboxes drain, for every run: each write a device made was applied exactly once on the final
/// server (the server's records of the devices' numbered writes count them, and no catalogue's
/// revision passes their number: only the devices write), none was rejected, every copy equals the
/// server's catalogues, and every database passes its checks. With `CATALOG_FAULT_KILLS=1`, in
/// about a third of the syncs the device is a `catalog sync` process on the device's file,
/// killed with SIGKILL at random moments (up to three times) and started again — the moments are
/// drawn from the seed, but where the process then is depends on the machine, so such a run
/// repeats its choices, not its interleaving.
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
                    switch roll {
                    case 0..<20: return .answer(FaultProxy.html(roll < 10 ? .notFound : .badGateway))
                    case 20..<28: return .truncate(after: Int.random(in: 0..<600, using: &random))
                    default: return .pass
                    }
                }
                guard seen.method == "POST" else { return .pass }
                if seen.path.hasSuffix("/writes") && roll < 30 { return .answer(FaultProxy.html(.contentTooLarge)) }
                switch roll {
                case 30..<45: return .answer(FaultProxy.html(.badGateway))
                case 45..<60: return .loseAnswer(FaultProxy.html(.badGateway))
                case 60..<70: return .duplicate
                case 70..<75: return .answer(FaultProxy.html(.notFound))
                case 75..<82: return .truncate(after: Int.random(in: 0..<200, using: &random))
                case 82..<88: return .delay(milliseconds: Int.random(in: 1...20, using: &random))
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

    /// A random move that changes the catalogue: a random book that `owns` to another shelf, at
    /// a random place (`atTop`: at the top, a place every server state has).
    static func randomMove(in catalog: Catalog, owns: (String) -> Bool = { _ in true }, atTop: Bool = false,
                           using random: inout Seeded) -> (item: String, section: String, index: Int)? {
        let books = catalog.sections.flatMap { section in section.items.filter { owns($0.id) }.map { (section.id, $0.id) } }
        guard let (from, item) = books.randomElement(using: &random),
              let target = catalog.sections.filter({ $0.id != from && $0.items.count < ($0.capacity ?? .max) }).randomElement(using: &random)
        else { return nil }
        return (item, target.id, atTop ? 0 : Int.random(in: 0...target.items.count, using: &random))
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
        let backup = try CatalogStore.inMemory()
        let outcome = Current<String?>(nil)
        try await FollowingTests.serving(server) { url in
            try await FollowingTests.serving(backup) { backupURL in
                let (behind, streams, faults) = (Current(url), FaultProxy.OpenStreams(), Faults(seed: seed))
                try await FaultProxy.run(toCurrent: { behind.value }, deciding: { faults.decide($0) }, streams: streams) { proxy in
                    outcome.value = try await rounds(seed: seed, server: server, backup: backup, restore: {
                        behind.value = backupURL
                        streams.finishAll()
                    }, faults: faults, proxy: proxy)
                }
            }
        }
        return outcome.value
    }

    /// The rounds of one run, and the oracle.
    static func rounds(seed: UInt64, server original: CatalogStore, backup: CatalogStore, restore: () -> Void,
                       faults: Faults, proxy: URL) async throws -> String? {
        var random = Seeded(state: seed)
        let rounds = 4
        // Some runs restore the server from a backup taken a round or two before; some copy a
        // device's database to a new device, once or twice.
        let backupRound = Int.random(in: 0..<(rounds - 1), using: &random)
        let restoreRound: Int? = Bool.random(using: &random) ? Int.random(in: (backupRound + 1)...min(rounds - 1, backupRound + 2), using: &random) : nil
        let copyRounds = Set((0..<Int.random(in: 0...2, using: &random)).map { _ in Int.random(in: 1..<rounds, using: &random) })
        var server = original
        var devices: [(store: CatalogStore, path: String)] = [try FollowingTests.deviceStore()]
        var owner: [String: Int] = [:]   // a book's device (absent: the first)
        var made: [String: Int] = [:]
        var kills = 0
        try await sync(devices[0].store, proxy, catalogues) { try copies(devices[0].store, server, catalogues) }
        for round in 0..<rounds {
            if restoreRound != nil && round == backupRound {
                try backup.restore(try catalogues.map { try original.archive(of: $0) }, retired: [:], clients: try original.clientRecords(), replacing: true)
                try backup.adoptIdentity(try original.identity())
            }
            if round == restoreRound {
                restore()
                server = backup
            }
            if copyRounds.contains(round) {
                // The first device's database copied whole; the copy takes every other book of it.
                let (first, path) = devices[0]
                let copyPath = path + "-\(devices.count).sqlite"
                let (reopened, copy) = try FollowingTests.copyDevice(first, at: path, to: copyPath)
                devices[0] = (reopened, path)
                devices.append((copy, copyPath))
                let theirs = shelves(catalogues[0]).sections.flatMap { $0.items.map(\.id) }.filter { (owner[$0] ?? 0) == 0 }
                for (index, book) in theirs.enumerated() where index % 2 == 1 { owner[book] = devices.count - 1 }
            }
            for (index, device) in devices.enumerated() {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let name = catalogues.randomElement(using: &random)!
                    guard let move = randomMove(in: try device.store.catalog(named: name), owns: { (owner[$0] ?? 0) == index },
                                                atTop: !copyRounds.isEmpty, using: &random) else { continue }
                    try await device.store.move(item: move.item, toSection: move.section, index: move.index, in: name)
                    made[name, default: 0] += 1
                }
            }
            let debugging = ProcessInfo.processInfo.environment["CATALOG_FAULT_DEBUG"] == "1"
            if debugging {
                print("round \(round)\(round == restoreRound ? " (restored)" : "")\(copyRounds.contains(round) ? " (copied)" : ""): server",
                      try catalogues.map { "\($0) r\(try server.revision(of: $0))" },
                      try server.clientRecords().map { "\($0.client.prefix(6)) last \($0.lastSequence)" })
                for (index, device) in devices.enumerated() {
                    print("  device \(index) before sync:", try device.store.outbox().map { "\($0.catalog) #\($0.sequence) \(($0.client ?? "-").prefix(6)).\($0.number ?? 0) \($0.state) r\($0.serverRevision ?? 0)" })
                }
            }
            for device in devices {
                let subset = catalogues.filter { _ in Bool.random(using: &random) }
                let following = subset.isEmpty ? [catalogues[0]] : subset
                if Int.random(in: 0..<3, using: &random) == 0 {
                    let moments = (0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: 0...300, using: &random) }
                    // Only with `CATALOG_FAULT_KILLS=1` (also for `Scripts/fault-runs.sh`): in two of
                    // four runs of the whole suite with kills, the test process died of SIGBUS
                    // in a memcpy, or one `catalog sync` never drained; never when the fault
                    // test ran alone. Until that is understood the suite keeps the device here.
                    if ProcessInfo.processInfo.environment["CATALOG_FAULT_KILLS"] != "1" {
                        try await sync(device.store, proxy, following) { try drained(device.store, following) }
                    } else {
                        try await syncKilled(at: moments, device.path, proxy, following) { try drained(device.store, following) }
                        kills += moments.count
                    }
                } else {
                    try await sync(device.store, proxy, following) { try drained(device.store, following) }
                }
            }
        }
        faults.stop()
        for device in devices {
            try await sync(device.store, proxy, catalogues) { try drained(device.store, catalogues) }
        }
        // Until a pass over every device changes nothing on the server: a device may learn only
        // now that a restored server lost a write it had confirmed, and send it again after
        // another device's copy was already found equal.
        for _ in 0..<5 {
            let before = try catalogues.map { try server.revision(of: $0) }
            for device in devices {
                try await sync(device.store, proxy, catalogues) { try drained(device.store, catalogues) && copies(device.store, server, catalogues) }
            }
            if try catalogues.map({ try server.revision(of: $0) }) == before { break }
        }
        // The oracle.
        var problem: String?
        let setting = "\(devices.count) device(s)\(restoreRound.map { ", restored at round \($0) to round \(backupRound)" } ?? "")"
            + (kills > 0 ? ", \(kills) kill(s) of catalog sync" : "")
        for (index, device) in devices.enumerated() {
            let rejected = try device.store.outbox().filter { $0.state == .rejected }
            if !rejected.isEmpty { problem = (problem ?? "") + " device \(index) rejected: \(rejected)" }
            if !(try copies(device.store, server, catalogues)) { problem = (problem ?? "") + " device \(index)'s copies differ" }
            try device.store.checkIntegrity()
        }
        // Each write applied once: the server recorded as many applied writes as the devices made
        // (every client id writes to one catalogue), and no catalogue moved further than that. A
        // write sent again after the server's history changed may change nothing there (a book
        // already where the move puts it): applied, its revision kept.
        var applied: [String: Int] = [:]
        for record in try server.clientRecords() {
            guard let name = record.catalog else { continue }
            applied[name, default: 0] += record.answers.values.filter { (200..<300).contains($0.status) }.count
        }
        for name in catalogues {
            let revision = try server.revision(of: name)
            if applied[name, default: 0] != made[name, default: 0] || revision > 1 + made[name, default: 0] {
                problem = (problem ?? "") + " \(name): the server applied \(applied[name, default: 0]) writes (at revision \(revision)), the devices made \(made[name, default: 0])"
            }
        }
        try server.checkIntegrity()
        if problem != nil, ProcessInfo.processInfo.environment["CATALOG_FAULT_DEBUG"] == "1" {
            for (index, device) in devices.enumerated() {
                print("device \(index):", try device.store.followedCatalogs().map { "\($0.name)" }, try device.store.outbox().map { "\($0.catalog) #\($0.sequence) \($0.client ?? "-").\($0.number ?? 0) \($0.state) r\($0.serverRevision ?? 0)" })
                for name in catalogues { print("  follows", name, String(describing: try device.store.following(name))) }
            }
            print("server records:", try server.clientRecords().map { "\($0.client) last \($0.lastSequence) at \($0.catalog ?? "-") r\($0.revision ?? 0) answers \($0.answers.keys.sorted())" })
        }
        return problem.map { "\(setting):\($0)" }
    }

    static func sync(_ device: CatalogStore, _ url: URL, _ catalogs: [String], until done: () throws -> Bool) async throws {
        let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(2), atMost: .milliseconds(20))
        let task = Task { try await client.run(following: catalogs) }
        defer { task.cancel() }
        try await waitUntil("the run following \(catalogs)", done)
        task.cancel()
        _ = await task.result
    }

    /// `catalog sync` on the device's file, killed with SIGKILL `moments[i]` milliseconds after
    /// its i-th start (sooner when `done` holds by then) and started again; the last start runs
    /// until `done` holds, and is killed too.
    static func syncKilled(at moments: [Int], _ path: String, _ url: URL, _ catalogs: [String], until done: () throws -> Bool) async throws {
        for (index, moment) in (moments + [nil]).enumerated() {
            let process = Process()
            process.executableURL = BuiltExecutables.url(of: "catalog")
            process.arguments = ["sync", "--server", url.absoluteString, "--db", path, "--retry-after", "2", "--retry-at-most", "20"] + catalogs
            // Its log, kept beside the device's file to say what a stuck run was doing.
            let log = path + "-sync.log"
            if !FileManager.default.fileExists(atPath: log) { FileManager.default.createFile(atPath: log, contents: nil) }
            let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            output.seekToEndOfFile()
            defer { try? output.close() }
            process.standardOutput = output
            process.standardError = output
            try process.run()
            defer {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
            if let moment {
                let end = ContinuousClock.now + .milliseconds(moment)
                while ContinuousClock.now < end, try !done() { try await Task.sleep(for: .milliseconds(2)) }
            } else {
                func logTail() -> String { String(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(1_500)) }
                try await waitUntil("catalog sync following \(catalogs) (start \(index + 1)); its log ends: \(logTail())") {
                    try done() || !process.isRunning
                }
                if try !process.isRunning && !done() {
                    Issue.record("catalog sync following \(catalogs) ended by itself (\(process.terminationStatus)); its log ends: \(logTail())")
                    throw CancellationError()
                }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal || process.terminationStatus == 0, "catalog sync ended by itself: \(process.terminationStatus)")
        }
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
