import CatalogClient
import CatalogDiff
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// Two devices and the server's own clients moving books at once for 20 s: afterwards both
/// copies equal the server's catalogue, every write a device made was applied once or rejected
/// with the server's reason, and every update either device's observers saw passes the simulator.
@Suite struct ConvergenceTests {
    /// Twelve shelves of capacity 4, half full.
    static let shelves = Catalog(name: "shelf", sections: (0..<12).map { s in
        Section(id: "s\(s)", kind: .bookshelf, capacity: 4, items: FollowingTests.books("s\(s)-", 2))
    })

    /// Every update an observer sees, checked with the simulator as it arrives.
    final class Checked: @unchecked Sendable {
        private let lock = NSLock()
        private var counted = 0, found: [String] = [], last = 0
        var updates: Int { lock.withLock { counted } }
        var violations: [String] { lock.withLock { found } }
        /// The revision of the last update seen.
        var revision: Int { lock.withLock { last } }

        func check(_ store: CatalogStore) -> Task<Void, Never> {
            Task {
                var seen: Catalog?
                do {
                    for try await update in store.updates(of: "shelf") {
                        if let before = seen, let changeset = update.changeset {
                            let broken = changeset.violations(from: before, to: update.catalog)
                            lock.withLock {
                                counted += 1
                                if !broken.isEmpty { found.append("\(before.revision)→\(update.revision): \(broken)") }
                            }
                        }
                        seen = update.catalog
                        lock.withLock { last = update.revision }
                    }
                } catch {}
            }
        }
    }

    @Test func twoFollowersAndTheServerMovingAtOnceConverge() async throws {
        let server = try CatalogStore.inMemory()
        try server.replace(Self.shelves)
        let devices = try (0..<2).map { _ in try FollowingTests.deviceStore().0 }
        try await FollowingTests.serving(server) { url in
            let clients = try devices.map { try CatalogClient(store: $0, server: url, retryingAfter: .milliseconds(50), atMost: .seconds(1)) }
            let running = clients.map { client in Task { try await client.run(following: ["shelf"]) } }
            defer { running.forEach { $0.cancel() } }
            for device in devices {
                try await waitUntil("the first snapshot") { try FollowingTests.same(device, server) }
            }
            let checks = devices.map { _ in Checked() }
            let watching = zip(checks, devices).map { $0.check($1) }
            // Moves by the server's own clients and each device's user, 200 acknowledged each (a
            // count, not a time: a busy machine makes them as well as an idle one, only slower).
            let books = Self.shelves.sections.flatMap { $0.items.map(\.id) }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<3 {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(writer + 1))
                        var writes = 0
                        for _ in 0..<10_000 where writes < 200 {
                            let book = books[Int.random(in: 0..<books.count, using: &random)]
                            let shelf = "s\(Int.random(in: 0..<12, using: &random))"
                            let policy: MovePolicy = [.reject, .displace, .swap][Int.random(in: 0..<3, using: &random)]
                            let store = writer < 2 ? devices[writer] : server
                            if (try? await store.move(item: book, toSection: shelf, index: 0, policy: policy, in: "shelf")) != nil { writes += 1 }
                            try await Task.sleep(for: .milliseconds(5))
                        }
                        return writes
                    }
                }
                var total = 0
                for try await writes in group { total += writes }
                #expect(total == 600)
            }
            for (client, device) in zip(clients, devices) {
                try await waitUntil("the outbox settled") { try client.outbox().allSatisfy { $0.state == .rejected } }
                try await waitUntil("the copy at the server's") { try FollowingTests.same(device, server) }
                try device.checkIntegrity()
            }
            // Every update checked, up to the copy as it ends.
            for (check, device) in zip(checks, devices) {
                let last = try device.revision(of: "shelf")
                try await waitUntil("the observer at the last revision") { check.revision == last }
            }
            watching.forEach { $0.cancel() }
            for check in checks {
                #expect(check.updates > 10)
                #expect(check.violations.isEmpty, "\(check.violations.prefix(3))")
            }
            // Every rejected write carries the server's reason.
            for client in clients {
                for entry in try client.outbox() {
                    #expect(entry.status.map { (400..<500).contains($0) } == true && entry.answer?.contains("\"type\"") == true)
                }
            }
        }
    }
}
