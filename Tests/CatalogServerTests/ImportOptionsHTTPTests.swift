import CatalogModel
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `PUT /catalogs/{name}` takes the import options as query parameters (docs/Catalogue-files.md); a bad one is a
/// 400 that names it and writes nothing.
@Suite struct ImportOptionsHTTPTests {
    static let wrapped = #"{"code": 0, "data": {"list": [{"id": 1, "text": "Wine", "price": 9, "pic": "w.png"}, {"id": 2, "text": "Beer", "price": 5, "pic": "b.png"}]}}"#

    @Test func optionsAsQueryParameters() async throws {
        try await ServerTests.withServer { client, store in
            try await client.execute(uri: "/catalogs/drinks?kind=icons&root=data.list&map=icon=pic", method: .put,
                                     headers: [.contentType: "application/json"], body: ServerTests.body(Self.wrapped)) { response in
                #expect(response.status == .created)
            }
            #expect(try store.catalog(named: "drinks").sections[0].items == [
                Item(id: "1", content: .icon(Icon(name: "Wine", icon: "w.png"))),
                Item(id: "2", content: .icon(Icon(name: "Beer", icon: "b.png"))),
            ])
            // Repeated map parameters, percent-encoded: the name from another key.
            try await client.execute(uri: "/catalogs/drinks?map=name%3Dpic&map=icon%3Dtext", method: .put,
                                     headers: [.contentType: "application/json"], body: ServerTests.body(Self.wrapped)) { response in
                #expect(response.status == .ok)
            }
            #expect(try store.catalog(named: "drinks").sections[0].items.map(\.content) == [
                .icon(Icon(name: "w.png", icon: "Wine")), .icon(Icon(name: "b.png", icon: "Beer")),
            ])
        }
    }

    @Test func badOptionsAre400AndWriteNothing() async throws {
        try await ServerTests.withServer { client, store in
            let before = try store.revision(of: "shelf")
            for (query, status, kind) in [("kind=podcasts", 400, "invalid-parameter"), ("capacity=0", 400, "invalid-parameter"),
                                          ("capacity=x", 400, "invalid-parameter"), ("format=csv", 400, "invalid-parameter"),
                                          ("map=colour=x", 400, "invalid-parameter"), ("map=cover", 400, "invalid-parameter"),
                                          ("root=data.nope", 422, "invalid-body"), ("map=icon=nope", 422, "invalid-body"),
                                          ("capacity=3", 422, "invalid-body")] {
                try await client.execute(uri: "/catalogs/shelf?\(query)", method: .put,
                                         headers: [.contentType: "application/json"], body: ServerTests.body(Self.wrapped)) { response in
                    try ServerTests.problem(response, status: status, kind: kind)
                }
            }
            #expect(try store.revision(of: "shelf") == before)
        }
    }
}
