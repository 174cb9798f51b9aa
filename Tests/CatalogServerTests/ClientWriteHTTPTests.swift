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

    /// Another write under a taken number — two devices with one client id (a copied device
    /// database) — is refused with 409 `number-taken`, never answered with the first write's
    /// answer; the first write's resend is still replayed. The same for a refusal: a full shelf
    /// recorded under a number is not the answer to another write under it. (Before, the second
    /// device got the first's answer, and its write vanished.)
    @Test(arguments: Backend.available)
    func anotherWriteUnderATakenNumberIsRefused(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let first = try await Self.send(client, body: Self.move("b0", to: "c"), headers: Self.numbered("copied", 1))
            #expect(first.status == 200)
            let other = try await Self.send(client, body: Self.move("a0", to: "c"), headers: Self.numbered("copied", 1))
            #expect(other.status == 409 && !other.replayed && other.body.contains("problems/number-taken"), "\(other.body)")
            #expect(try await store.revision(of: "shelf") == 2)
            let again = try await Self.send(client, body: Self.move("b0", to: "c"), headers: Self.numbered("copied", 1))
            #expect(again.status == 200 && again.replayed && again.body == first.body)
            // Within a request of several writes, too.
            let several = try await Self.send(client, "/catalogs/shelf/writes", body: #"[{"operations": [{"op": "moveItem", "id": "a1", "toSection": "c"}]}]"#,
                                              headers: Self.numbered("copied", 1))
            #expect(several.status == 200 && several.body.contains("problems/number-taken"), "\(several.body)")
            // A refusal: shelf a is full; another write under its number is not refused with it.
            let full = try await Self.send(client, body: Self.move("c0", to: "a"), headers: Self.numbered("copied", 2))
            #expect(full.status == 404 || full.status == 409 || full.status == 422, "\(full.body)")
            let afterRefusal = try await Self.send(client, body: Self.move("b0", to: "b"), headers: Self.numbered("copied", 2))
            #expect(afterRefusal.status == 409 && afterRefusal.body.contains("problems/number-taken"), "\(afterRefusal.body)")
            #expect(try await store.revision(of: "shelf") == 2)
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

    /// `POST …/writes`: several numbered writes, each applied or refused on its own, in order,
    /// up to the first that may pass later.
    @Test(arguments: Backend.available)
    func severalWritesInOneRequest(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            func batch(_ item: String, _ section: String, base: Int? = nil) -> String {
                (base.map { #"{"baseRevision": \#($0), "# } ?? "{") + #""operations": [{"op": "moveItem", "id": "\#(item)", "toSection": "\#(section)", "index": 0}]}"#
            }
            // b0 to c; b0 to the full shelf a (refused for good); a1 to b; a0 on a stale base (may pass later); a0 to b.
            let body = "[" + [batch("b0", "c"), batch("b0", "a"), batch("a1", "b"), batch("a0", "c", base: 1), batch("a0", "b")].joined(separator: ",") + "]"
            let answer = try await Self.send(client, "/catalogs/shelf/writes", body: body, headers: Self.numbered("phone", 1))
            #expect(answer.status == 200, "\(answer.body)")
            struct Answers: Decodable {
                struct One: Decodable { var sequence: Int; var status: Int; var replayed: Bool? }
                var answers: [One]
            }
            let answers = try JSONDecoder().decode(Answers.self, from: Data(answer.body.utf8)).answers
            // The stale base revision stops the run: the last write is not tried.
            #expect(answers.map(\.sequence) == [1, 2, 3, 4] && answers.map(\.status) == [200, 409, 200, 409], "\(answer.body)")
            #expect(answer.body.contains("shelf-full") && answer.body.contains("stale-revision"))
            #expect(try await store.revision(of: "shelf") == 3)
            // The whole answer lost: the request sent again gets each write's first answer — the
            // refusal with its reason too — and nothing is applied twice.
            let resent = try await Self.send(client, "/catalogs/shelf/writes", body: body, headers: Self.numbered("phone", 1))
            let replayed = try JSONDecoder().decode(Answers.self, from: Data(resent.body.utf8)).answers
            #expect(replayed.map(\.sequence) == [1, 2, 3, 4] && replayed.map(\.status) == [200, 409, 200, 409], "\(resent.body)")
            #expect(replayed.map { $0.replayed == true } == [true, true, true, false], "\(resent.body)")
            #expect(resent.body.contains("shelf-full") && resent.body.contains("stale-revision"))
            #expect(try await store.revision(of: "shelf") == 3)
            // Write 4 is free again, and 5 follows it: sent again, rebased.
            let again = try await Self.send(client, "/catalogs/shelf/writes", body: "[" + batch("a0", "c") + "," + batch("a0", "b") + "]",
                                            headers: Self.numbered("phone", 4))
            let second = try JSONDecoder().decode(Answers.self, from: Data(again.body.utf8)).answers
            #expect(second.map(\.status) == [200, 200] && second.map(\.sequence) == [4, 5], "\(again.body)")
            // The answers to the request before are kept too (the client's last numbers): sent
            // again, its writes are answered as before, nothing applied again.
            let stale = try await Self.send(client, "/catalogs/shelf/writes", body: body, headers: Self.numbered("phone", 1))
            let answeredAgain = try JSONDecoder().decode(Answers.self, from: Data(stale.body.utf8)).answers
            #expect(answeredAgain.prefix(3).map(\.status) == [200, 409, 200] && answeredAgain.prefix(3).allSatisfy { $0.replayed == true },
                    "\(stale.body)")
            #expect(try await store.revision(of: "shelf") == 5)
            // The last one sent again: replayed, not applied twice.
            let replay = try await Self.send(client, "/catalogs/shelf/writes", body: "[" + batch("a0", "b") + "]", headers: Self.numbered("phone", 5))
            #expect(try JSONDecoder().decode(Answers.self, from: Data(replay.body.utf8)).answers.first?.replayed == true)
            #expect(try await store.revision(of: "shelf") == 5)
            // Bad bodies and missing headers: 400, nothing written.
            for (body, headers) in [("[]", Self.numbered("phone", 6)), ("{}", Self.numbered("phone", 6)), ("[{\"operations\": 3}]", Self.numbered("phone", 6)),
                                    ("[" + batch("a0", "c") + "]", [:])] {
                let refused = try await Self.send(client, "/catalogs/shelf/writes", body: body, headers: headers)
                #expect(refused.status == 400 || refused.status == 422, "\(body): \(refused.body)")
            }
            // More writes than one request may carry: 413, none tried.
            let tooMany = "[" + Array(repeating: batch("a0", "c"), count: 1_001).joined(separator: ",") + "]"
            let refused = try await Self.send(client, "/catalogs/shelf/writes", body: tooMany, headers: Self.numbered("phone", 6))
            #expect(refused.status == 413 && refused.body.contains("1000 batches"), "\(refused.body)")
            #expect(try await store.revision(of: "shelf") == 5)
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
