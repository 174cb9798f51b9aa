import CatalogClient
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// Every write a device makes is applied once on the server, or reported rejected with the
/// server's reason — whichever catalogues a run follows, and when the device's database is
/// copied to another device.
@Suite struct NumberingTests {
    typealias Following = FollowingTests

    /// Runs a client of `device` following `catalogs` until `done` holds.
    static func sync(_ device: CatalogStore, _ url: URL, _ catalogs: [String], until what: String, _ done: () throws -> Bool) async throws {
        let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(20), atMost: .milliseconds(200))
        let task = Task { try await client.run(following: catalogs) }
        defer { task.cancel() }
        try await waitUntil(what, done)
        task.cancel()
        _ = await task.result
    }

    static func inStep(_ device: CatalogStore, _ server: CatalogStore, _ names: [String]) throws -> Bool {
        try names.allSatisfy { name in
            guard let copy = try? device.catalog(named: name) else { return false }
            let outbox = try device.outbox(of: name)
            return try copy.sections == server.catalog(named: name).sections && outbox.allSatisfy { $0.state == .rejected }
        }
    }

    /// A device follows two catalogues, makes a write to each offline, and its next run follows
    /// only the second: both writes are applied, neither rejected. (Before, the run of one
    /// catalogue filled the other's number with an empty write, and the other's write was later
    /// taken as applied long ago: the move was gone, never reported.)
    @Test func followingSomeCataloguesKeepsTheOthersWrites() async throws {
        let server = try CatalogStore.inMemory()
        var archive = Following.shelves
        archive.name = "archive"
        try server.replace(Following.shelves)
        try server.replace(archive)
        let (device, _) = try Following.deviceStore()
        try await Following.serving(server) { url in
            try await Self.sync(device, url, ["archive", "shelf"], until: "both copies") { try Self.inStep(device, server, ["archive", "shelf"]) }
            try await device.move(item: "b0", toSection: "c", index: 0, in: "archive")   // write 1
            try await device.move(item: "a0", toSection: "b", index: 0, in: "shelf")     // write 2
            try await Self.sync(device, url, ["shelf"], until: "the shelf's write") {
                try server.catalog(named: "shelf").sections[1].items.map(\.id) == ["a0", "b0"] && Self.inStep(device, server, ["shelf"])
            }
            try await Self.sync(device, url, ["archive", "shelf"], until: "the archive's write") { try Self.inStep(device, server, ["archive", "shelf"]) }
            #expect(try server.catalog(named: "archive").sections[2].items.map(\.id) == ["b0"])
            let left = try device.outbox()
            #expect(left.isEmpty, "\(left)")
            // Each applied once: two writes, two revisions past the import.
            #expect(try server.revision(of: "shelf") == 2 && server.revision(of: "archive") == 2)
        }
    }

    /// A device database copied to a second device (or restored from a backup there): each makes
    /// its own move offline, both are applied, neither is answered with the other's answer.
    /// (Before, the second device's move was taken as applied — the first's answer, or "expected
    /// N+1", read as its own — and vanished.)
    @Test(arguments: [1, 3])
    func aCopiedDeviceDatabaseLosesNoWrite(firstDeviceWrites: Int) async throws {
        let server = try CatalogStore.inMemory()
        try server.replace(Following.shelves)
        let (first, firstPath) = try Following.deviceStore()
        try await Following.serving(server) { url in
            try await Self.sync(first, url, ["shelf"], until: "the first snapshot") { try Self.inStep(first, server, ["shelf"]) }
            let (one, two) = try Following.copyDevice(first, at: firstPath, to: firstPath + "-copy.sqlite")
            // The first device: one move, or three (its server record then goes past anything the
            // second ever sent). The second: another move, under the same numbers.
            let moves = [("b0", "c"), ("a0", "b"), ("a1", "b")].prefix(firstDeviceWrites)
            for (item, shelf) in moves { try await one.move(item: item, toSection: shelf, index: 0, in: "shelf") }
            try await two.move(item: "a2", toSection: "c", index: 0, in: "shelf")
            try await Self.sync(one, url, ["shelf"], until: "the first device's writes") { try Self.inStep(one, server, ["shelf"]) }
            try await Self.sync(two, url, ["shelf"], until: "the second device's write") { try Self.inStep(two, server, ["shelf"]) }
            let onServer = try server.catalog(named: "shelf")
            #expect(onServer.sections[2].items.map(\.id).contains("a2"), "\(onServer.sections)")
            for (item, shelf) in moves { #expect(onServer.sections.first { $0.id == shelf }?.items.contains { $0.id == item } == true, "\(item)") }
            #expect(try one.outbox().isEmpty && two.outbox().isEmpty)
            #expect(try server.revision(of: "shelf") == 1 + firstDeviceWrites + 1)

        }
    }
}

/// A device killed at any step starts again consistent.
@Suite struct CrashSafetyTests {
    /// The server's refusal of a write is recorded, and the device is killed before its copy is
    /// repaired (the refused move still shown): started again, it takes the server's snapshot and
    /// its copy equals the server's. (Before, it took the copy, refused move and all, for the
    /// server's catalogue at the revision recorded, and stayed wrong.)
    @Test func aRefusalRecordedWithoutItsRepairIsRepairedAfterARestart() async throws {
        try await FollowingTests.servedShelves { server, device, url in
            try await NumberingTests.sync(device, url, ["shelf"], until: "the first snapshot") { try NumberingTests.inStep(device, server, ["shelf"]) }
            // Offline, the device moves b0 onto shelf c; the server fills shelf c meanwhile.
            try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
            for book in ["a0", "a1", "a2"] { try await server.move(item: book, toSection: "c", in: "shelf") }
            // The answer is recorded — and the device dies before it repairs its copy.
            let entry = try #require(try device.outbox().first)
            let refusal = #"{"type":"https://catalogkit.dev/problems/shelf-full","title":"Conflict","status":409,"detail":"shelf "c" is full"}"#
            try device.settle([(entry.sequence, nil, RecordedAnswer(status: 409, body: refusal))])
            #expect(try device.followedCatalogs().first?.isUnrepaired == true)
            try await NumberingTests.sync(device, url, ["shelf"], until: "the copy at the server's") { try NumberingTests.inStep(device, server, ["shelf"]) }
            #expect(try device.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [[], ["b0"], ["a0", "a1", "a2"]])
            #expect(try device.followedCatalogs().first?.isUnrepaired == false)
            #expect(try device.outbox().map(\.state) == [.rejected])
            try device.checkIntegrity()
        }
    }
}

extension NumberingTests {
    /// Two devices seeded from one file that both number afresh the writes they share (made
    /// before the copy, waiting on both) take one new id, so the server answers the second's
    /// resend as the writes they are; once their first waiting writes differ, so do their ids.
    /// (Before, each took a random id, and a write both held was applied twice: the fault test's
    /// seed 35, three devices.)
    @Test func devicesThatShareWaitingWritesNumberThemAfreshUnderOneID() async throws {
        let (device, path) = try Following.deviceStore()
        try device.replace(Following.shelves)
        _ = try device.follow("shelf", server: "http://127.0.0.1:1")
        try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
        let (first, second) = try Following.copyDevice(device, at: path, to: path + "-copy.sqlite")
        let shared = try first.renumber("shelf")
        #expect(try second.renumber("shelf") == shared)
        #expect(try first.outbox().map(\.number) == [1] && second.outbox().map(\.client) == [shared])
        // Each makes a write of its own; the shared one is answered on both.
        try await first.move(item: "a0", toSection: "b", index: 0, in: "shelf")
        try await second.move(item: "a1", toSection: "b", index: 0, in: "shelf")
        for store in [first, second] { try store.settle([(try #require(try store.outbox().first).sequence, 2, nil)]) }
        #expect(try first.renumber("shelf") != second.renumber("shelf"))
    }
}

/// Many followed catalogues: each gets its copy, and the outbox is never stuck behind the streams.
@Suite struct ManyCataloguesTests {
    /// `count` catalogues on a live server, followed into a new device through `transport` (nil:
    /// the default), each request shown to `seen` on the way (through a proxy): every copy in
    /// step, then a move on the last applied.
    static func followMany(_ count: Int, transport: (any CatalogTransport)? = nil,
                           seen: (@Sendable (FaultProxy.Seen) -> Void)? = nil) async throws {
        let server = try CatalogStore.inMemory()
        let names = (0..<count).map { "shelf\($0)" }
        for name in names {
            var catalog = FollowingTests.shelves
            catalog.name = name
            try server.replace(catalog)
        }
        let (device, _) = try FollowingTests.deviceStore()
        let last = names[count - 1]
        let follow: @Sendable (URL) async throws -> Void = { url in
            let client = try CatalogClient(store: device, server: url, transport: transport, retryingAfter: .milliseconds(20), atMost: .milliseconds(200))
            let task = Task { try await client.run(following: names) }
            defer { task.cancel() }
            try await waitUntil("\(count) copies") { try NumberingTests.inStep(device, server, names) }
            try await device.move(item: "b0", toSection: "c", index: 0, in: last)
            try await waitUntil("the move on the server") {
                try server.catalog(named: last).sections[2].items.map(\.id) == ["b0"] && NumberingTests.inStep(device, server, names)
            }
            task.cancel()
            _ = await task.result
        }
        try await FollowingTests.serving(server) { url in
            guard let seen else { return try await follow(url) }
            try await FaultProxy.run(to: url, fault: { request in
                seen(request)
                return nil
            }, follow)
        }
    }

    /// Ten catalogues followed at once: every one gets its copy, and a move on the tenth is
    /// applied. (Before, each stream held one of the eight connections the shared HTTP client
    /// keeps per host: two catalogues never got a copy, and the move waited without a word.)
    @Test func tenFollowedCataloguesAllGetTheirCopiesAndTheOutboxIsSent() async throws {
        try await Self.followMany(10)
    }

    /// Two hundred catalogues followed through an HTTP client that keeps two connections to the
    /// server: their streams share one (`POST /events`, nothing else asks for a stream), every
    /// catalogue gets its copy, and a move on the last is applied through the other connection.
    /// (With a stream per catalogue, 198 of them waited for a connection that never came.)
    @Test func twoHundredCataloguesShareOneConnection() async throws {
        let streams = HostileServerTests.Asked()
        let perCatalogue = HostileServerTests.Asked()
        try await TransportContractTests.Kind.asyncHTTPClient.with(connections: 2) { transport in
            try await Self.followMany(200, transport: transport) { seen in
                if seen.path == "/events" { streams.once() }
                if seen.path.hasPrefix("/catalogs/") && seen.path.contains("/events") { perCatalogue.once() }
            }
        }
        #expect(streams.times >= 1 && perCatalogue.times == 0)
    }
}
