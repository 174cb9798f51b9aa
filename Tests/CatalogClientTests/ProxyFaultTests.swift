import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import Testing
@testable import CatalogClient

/// What a proxy between the device and the server answers is not the server's word: a device
/// behind one that fails keeps its copy and its writes, and sends them once it passes.
@Suite struct ProxyFaultTests {
    typealias Following = FollowingTests

    /// A proxy's HTML 404 (a deploy, a wrong route) for the event stream and the writes: the copy
    /// stays, the write stays pending, the catalogue stays followed, and once the proxy passes
    /// again the write is applied. (Before, the client deleted the copy, rejected the write with
    /// "the server deleted the catalogue" and stopped following.)
    @Test func aProxys404IsNotADeletion() async throws {
        try await Following.servedShelves { server, device, url in
            let failing = Flag()
            let streams = HostileServerTests.Asked()
            try await FaultProxy.run(to: url, fault: { seen in
                if seen.path.contains("/events") { streams.once() }
                return failing.isOn ? FaultProxy.html(.notFound) : nil
            }) { proxy in
                try await Following.following(device, proxy) { _ in
                    try await waitUntil("the first snapshot") { try Following.same(device, server) }
                }
                try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
                failing.isOn = true
                let before = streams.times
                let client = try CatalogClient(store: device, server: proxy, retryingAfter: .milliseconds(10), atMost: .milliseconds(50))
                let task = Task { try await client.run(following: ["shelf"]) }
                try await waitUntil("three refused streams") { streams.times >= before + 3 }
                #expect(try device.followedCatalogs().map(\.name) == ["shelf"])
                #expect(try device.catalog(named: "shelf").sections[2].items.map(\.id) == ["b0"])
                #expect(try device.outbox().map(\.state) == [.pending])
                failing.isOn = false
                try await waitUntil("the write on the server") { try client.outbox().isEmpty && Following.same(device, server) }
                #expect(try server.catalog(named: "shelf").sections[2].items.map(\.id) == ["b0"])
                task.cancel()
                _ = await task.result
            }
        }
    }

    /// A proxy that refuses requests over a size (413) with several writes in them: the client
    /// sends them in smaller requests, down to one, and every one is applied — none is rejected
    /// for the proxy's refusal of the request that carried it. (Before, two of three valid moves
    /// were marked `rejected: 413` and never reached the server.)
    @Test func aProxys413SplitsTheRequest() async throws {
        try await Following.servedShelves { server, device, url in
            let sizes = Sizes()
            try await FaultProxy.run(to: url, fault: { seen in
                guard seen.method == "POST", seen.path.hasPrefix("/catalogs/") else { return nil }
                let count = seen.path.hasSuffix("/writes") ? seen.body.components(separatedBy: "\"operations\"").count - 1 : 1
                sizes.add(count)
                return count > 1 ? FaultProxy.html(.contentTooLarge) : nil
            }) { proxy in
                try await Following.following(device, proxy) { _ in
                    try await waitUntil("the first snapshot") { try Following.same(device, server) }
                }
                // Offline: three moves, sent together when the device is back.
                try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
                try await device.move(item: "a0", toSection: "b", index: 0, in: "shelf")
                try await device.move(item: "a1", toSection: "b", index: 1, in: "shelf")
                try await Following.following(device, proxy) { client in
                    try await waitUntil("the writes on the server \((try? client.outbox()) ?? [])") {
                        try client.outbox().isEmpty && Following.same(device, server)
                    }
                }
                #expect(try server.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [["a2"], ["a0", "a1"], ["b0"]])
                // 3 refused, then smaller requests; no request of several writes passed.
                #expect(sizes.all.first == 3 && sizes.all.filter { $0 == 1 }.count == 3, "\(sizes.all)")
            }
        }
    }

    /// The server behind the device's address is swapped for a backup of it taken before the
    /// device's writes (its revisions go back): the device takes the backup's snapshot, its
    /// copy equals it, and it goes on following — never resuming where it stood. (Before, the
    /// stream's 400 "revision not reached" was retried for ever, the copy stuck on a history
    /// the server no longer had.)
    @Test func aServerRestoredFromABackupIsFollowedFromItsSnapshot() async throws {
        let original = try CatalogStore.inMemory()
        try original.replace(Following.shelves)
        let backup = try CatalogStore.inMemory()
        try backup.restore([try original.archive(of: "shelf")], retired: [:], clients: [], replacing: false)
        let (device, _) = try Following.deviceStore()
        try await Following.serving(original) { originalURL in
            try await Following.serving(backup) { backupURL in
                let behind = Current(originalURL)
                let streams = FaultProxy.OpenStreams()
                try await FaultProxy.run(toCurrent: { behind.value }, streams: streams) { proxy in
                    try await Following.following(device, proxy) { client in
                        try await waitUntil("the first snapshot") { try Following.same(device, original) }
                        try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
                        try await original.move(item: "a0", toSection: "b", in: "shelf")
                        try await waitUntil("in step at 3") {
                            try client.outbox().isEmpty && Following.same(device, original) && device.followedCatalogs().first?.serverRevision == 3
                        }
                        behind.value = backupURL
                        streams.finishAll()
                        // The server's next change reaches the device: it follows the backup's history.
                        try await backup.move(item: "a1", toSection: "c", in: "shelf")
                        try await waitUntil("the backup's catalogue \((try? device.catalog(named: "shelf"))?.sections.map { $0.items.map(\.id) } ?? [])") {
                            try Following.same(device, backup) && device.followedCatalogs().first?.serverRevision == 2
                        }
                    }
                }
            }
        }
    }

    /// The writes' counts the proxy saw, in order.
    final class Sizes: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [Int] = []
        func add(_ count: Int) { lock.withLock { list.append(count) } }
        var all: [Int] { lock.withLock { list } }
    }
}
