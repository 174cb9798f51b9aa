import CatalogClient
import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import CatalogViews
import Foundation
import Testing

/// A view of a device's followed copy (docs/Views.md, "Live views"): the server's writes reach it
/// as the view's changesets, and so do the device's own writes offline, with no server at all.
@Suite struct FollowedViewTests {
    static let view = try! ViewDefinition(where: #"section != "c""#, sort: "-title", group: "none")

    @Test func aViewOfTheFollowedCopyIsLiveOnlineAndOffline() async throws {
        try await FollowingTests.servedShelves { server, device, url in
            var view: Catalog?
            let observer = device.viewObserver(of: "shelf", view: Self.view)
            /// The next answer, checked by the simulator from the view before it.
            func next() async throws -> Catalog {
                let answer = try #require(try await observer.next(waitingAtMost: .seconds(60)))
                if let before = view {
                    let changeset = try #require(answer.update.changeset)
                    #expect(changeset.violations(from: before, to: answer.update.catalog) == [])
                }
                view = answer.update.catalog
                return answer.update.catalog
            }
            try await FollowingTests.following(device, url) { _ in
                try await waitUntil("the first snapshot") { try FollowingTests.same(device, server) }
                #expect(try await next().sections[0].items.map(\.id) == ["b0", "a2", "a1", "a0"])
                // The server moves a0 onto shelf c: out of the view.
                try await server.move(item: "a0", toSection: "c", in: "shelf")
                #expect(try await next().sections[0].items.map(\.id) == ["b0", "a2", "a1"])
            }
            // Offline: the device's own move brings a book back into the view.
            try await device.move(item: "a0", toSection: "b", index: 0, in: "shelf")
            let offline = try await next()
            #expect(offline.sections[0].items.map(\.id) == ["b0", "a2", "a1", "a0"])
            #expect(offline == (try Self.view.evaluate(on: try device.catalog(named: "shelf"))).catalog)
            observer.cancel()
        }
    }
}
