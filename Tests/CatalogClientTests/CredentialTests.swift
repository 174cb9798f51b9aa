import CatalogClient
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A device whose token the server stops accepting asks the app's provider for another before
/// giving up, and goes on following and sending with it.
@Suite struct CredentialTests {
    final class Asked: @unchecked Sendable {
        private let lock = NSLock()
        private var refreshes = 0
        private var current = "old"
        func give(refresh: Bool) -> String {
            lock.withLock {
                if refresh { refreshes += 1 }
                return current
            }
        }
        func rotate(to token: String) { lock.withLock { current = token } }
        var refreshCount: Int { lock.withLock { refreshes } }
    }

    @Test(arguments: TransportContractTests.Kind.allCases)
    func aRefusedTokenIsRefreshedThroughTheProvider(kind: TransportContractTests.Kind) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "device \(TokenFile.hash("old")) write shelf\n".write(toFile: path, atomically: true, encoding: .utf8)
        let credentials = try ServerCredentials(tokenFile: path)
        let server = try CatalogStore.inMemory()
        try server.replace(FollowingTests.shelves)
        let (device, _) = try FollowingTests.deviceStore()
        let app = CatalogServer.application(store: server, configuration: ServerConfiguration(port: 0, credentials: credentials, protectReads: true,
                                                                                               headTimeout: 300))
        let asked = Asked()
        try await app.test(.live) { http in try await kind.with { transport in
            let url = URL(string: "http://127.0.0.1:\(try #require(http.port))")!
            let client = try CatalogClient(store: device, server: url, tokenProvider: { refresh in asked.give(refresh: refresh) },
                                           transport: transport, retryingAfter: .milliseconds(20), atMost: .milliseconds(200))
            let task = Task { try await client.run(following: ["shelf"]) }
            defer { task.cancel() }
            try await waitUntil("the first snapshot") { try FollowingTests.same(device, server) }
            #expect(asked.refreshCount == 0)
            // The backend issues a new token and revokes the old one; the device's next write is
            // refused once, then sent with the new token.
            try "device \(TokenFile.hash("new")) write shelf\n".write(toFile: path, atomically: true, encoding: .utf8)
            try credentials.reloadTokenFile()
            asked.rotate(to: "new")
            try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
            try await waitUntil("the write on the server") { try server.catalog(named: "shelf").sections[2].items.map(\.id) == ["b0"] }
            try await waitUntil("the outbox drained") { try client.outbox().isEmpty }
            #expect(asked.refreshCount >= 1)
            task.cancel()
            _ = await task.result
        } }
    }

    @Test func aProviderWithNothingNewLeavesTheRefusal() async throws {
        let server = try CatalogStore.inMemory()
        try server.replace(FollowingTests.shelves)
        let (device, _) = try FollowingTests.deviceStore()
        let app = CatalogServer.application(store: server, configuration: ServerConfiguration(port: 0, token: "right", protectReads: true, headTimeout: 300))
        try await app.test(.live) { http in
            let url = URL(string: "http://127.0.0.1:\(try #require(http.port))")!
            let client = try CatalogClient(store: device, server: url, tokenProvider: { _ in "wrong" })
            await #expect(throws: CatalogClientError.self) { try await client.run(following: ["shelf"]) }
        }
    }
}
