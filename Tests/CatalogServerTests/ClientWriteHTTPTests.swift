import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Testing

/// Numbered writes over HTTP (`Catalog-Client-ID`, `Catalog-Client-Sequence`), on every backend:
/// a resend is answered as the first time and not applied again, a gap is refused with the number
/// expected, a refusal for good takes its number, and bad headers are 400 with nothing written.
@Suite struct ClientWriteHTTPTests {
    struct Answer {
        var status: Int
        var body: String
        var replayed: Bool
        var contentType: String?
    }

    static func send(_ client: any TestClientProtocol, _ path: String = "/catalogs/shelf/moves", body: String,
                     headers extra: [String: String]) async throws -> Answer {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
            Answer(status: Int(response.status.code), body: String(buffer: response.body),
                   replayed: response.headers[HTTPField.Name("Catalog-Replayed")!] == "true", contentType: response.headers[.contentType])
        }
    }

    static func numbered(_ client: String, _ sequence: Int) -> [String: String] {
        ["Catalog-Client-ID": client, "Catalog-Client-Sequence": String(sequence)]
    }

    static func move(_ item: String, to section: String) -> String {
        #"{"item": "\#(item)", "toSection": "\#(section)", "index": 0}"#
    }

    @Test(arguments: Backend.available)
    func aResendGetsTheFirstAnswerAndAGapIsRefused(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let first = try await Self.send(client, body: Self.move("b0", to: "c"), headers: Self.numbered("phone-7", 1))
            #expect(first.status == 200 && !first.replayed)
            #expect(try await store.revision(of: "shelf") == 2)
            // The answer was lost; the client sends the same write again.
            let again = try await Self.send(client, body: Self.move("b0", to: "c"), headers: Self.numbered("phone-7", 1))
            #expect(again.status == 200 && again.replayed && again.body == first.body && again.contentType == "application/json")
            #expect(try await store.revision(of: "shelf") == 2)
            // A gap: 409 naming the number expected; nothing written.
            let gap = try await Self.send(client, body: Self.move("b0", to: "b"), headers: Self.numbered("phone-7", 3))
            #expect(gap.status == 409 && gap.body.contains(#""type":"https://catalogkit.dev/problems/out-of-sequence""#))
            #expect(gap.body.contains(#""expected":2"#))
            #expect(try await store.revision(of: "shelf") == 2)
            // A batch takes the next number.
            let batch = try await Self.send(client, "/catalogs/shelf/batches",
                                            body: #"{"operations": [{"op": "moveItem", "id": "b0", "toSection": "b"}]}"#,
                                            headers: Self.numbered("phone-7", 2))
            #expect(batch.status == 200 && !batch.replayed, "\(batch.body)")
            #expect(try await store.revision(of: "shelf") == 3)
            // Writes without the headers are as before.
            #expect(try await Self.send(client, body: Self.move("b0", to: "c"), headers: [:]).status == 200)
        }
    }

    @Test(arguments: Backend.available)
    func aRefusalForGoodTakesItsNumberAndOneThatMayPassDoesNot(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            // A full shelf: 409 shelf-full, recorded; a resend gets it again, and 2 follows.
            let full = try await Self.send(client, body: Self.move("b0", to: "a"), headers: Self.numbered("tablet", 1))
            #expect(full.status == 409 && full.body.contains("shelf-full"))
            let resent = try await Self.send(client, body: Self.move("b0", to: "a"), headers: Self.numbered("tablet", 1))
            #expect(resent.status == 409 && resent.replayed && resent.body == full.body && resent.contentType == "application/problem+json")
            // A malformed body is refused for good too.
            let malformed = try await Self.send(client, body: #"{"item": "#, headers: Self.numbered("tablet", 2))
            #expect(malformed.status == 400)
            // A stale base revision may pass when sent again rebased: its number stays free.
            let stale = try await Self.send(client, body: #"{"item": "b0", "toSection": "c", "baseRevision": 0}"#, headers: Self.numbered("tablet", 3))
            #expect(stale.status == 409 && stale.body.contains("stale-revision"))
            let rebased = try await Self.send(client, body: #"{"item": "b0", "toSection": "c", "baseRevision": 1}"#, headers: Self.numbered("tablet", 3))
            #expect(rebased.status == 200 && !rebased.replayed, "\(rebased.body)")
            #expect(try await store.revision(of: "shelf") == 2)
        }
    }

    @Test(arguments: Backend.available)
    func badHeadersAre400AndWriteNothing(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let cases: [[String: String]] = [
                ["Catalog-Client-ID": "phone"],
                ["Catalog-Client-Sequence": "1"],
                Self.numbered("phone", 0),
                Self.numbered("phone", -4),
                ["Catalog-Client-ID": "phone", "Catalog-Client-Sequence": "99999999999999999999999"],
                ["Catalog-Client-ID": "phone", "Catalog-Client-Sequence": "one"],
                ["Catalog-Client-ID": "", "Catalog-Client-Sequence": "1"],
                ["Catalog-Client-ID": "a b", "Catalog-Client-Sequence": "1"],
                ["Catalog-Client-ID": String(repeating: "x", count: 129), "Catalog-Client-Sequence": "1"],
            ]
            for headers in cases {
                let answer = try await Self.send(client, body: Self.move("b0", to: "c"), headers: headers)
                #expect(answer.status == 400 && answer.body.contains("invalid-header"), "\(headers): \(answer.body)")
            }
            #expect(try await store.revision(of: "shelf") == 1)
            // The client's first number is still free.
            #expect(try await Self.send(client, body: Self.move("b0", to: "c"), headers: Self.numbered("phone", 1)).status == 200)
        }
    }
}
