import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// What the browser console needs of the server (docs/Console.md): its files, served with a
/// policy that allows only them, without the token; layouts that say what each element shows and
/// answer a rect; the history of writes. The page itself is driven in Chromium by
/// Tests/Console/test_console.py.
@Suite struct ConsoleRoutesTests {
    @Test func thePageAndEveryModuleItImportsAreServedWithTheirPolicy() async throws {
        try await ServerTests.withServer { client, _ in
            var pending = ["/"]
            var served: Set<String> = []
            while let path = pending.popLast() {
                guard served.insert(path).inserted else { continue }
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    let policy = try #require(response.headers[.contentSecurityPolicy])
                    #expect(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'") && !policy.contains("unsafe"))
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                    let text = String(buffer: response.body)
                    if path == "/" {
                        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                        #expect(!text.contains("<script>"), "no inline script")
                        pending += Self.references(in: text, pattern: #"(?:src|href)="(/console/[^"]+)""#)
                    } else if path.hasSuffix(".js") {
                        #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                        #expect(!text.contains("innerHTML"), "\(path) writes markup")
                        pending += Self.references(in: text, pattern: #"from "\./([^"]+)""#).map { "/console/\($0)" }
                    }
                }
            }
            #expect(served.isSuperset(of: ["/", "/console/app.js", "/console/console.css", "/console/view.js", "/console/api.js"]), "\(served)")
            try await client.execute(uri: "/console/missing.js", method: .get) { try ServerTests.problem($0, status: 404, kind: "not-found") }
            try await client.execute(uri: "/console/../catalogs", method: .get) { #expect($0.status != .ok || $0.headers[.contentSecurityPolicy] == nil) }
        }
    }

    @Test func theFilesNeedNoTokenButTheCataloguesDo() async throws {
        try await ServerTests.withServer(ServerConfiguration(port: 0, token: "s3cret", protectReads: true)) { client, _ in
            for path in ["/", "/index.html", "/console/app.js"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .ok, "\(path)") }
            }
            try await client.execute(uri: "/catalogs", method: .get) { try ServerTests.problem($0, status: 401, kind: "unauthorized") }
            try await client.execute(uri: "/catalogs/shelf/history", method: .get) { try ServerTests.problem($0, status: 401, kind: "unauthorized") }
        }
    }

    static func references(in text: String, pattern: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test(arguments: Backend.available)
    func layoutsSayWhatEachElementShowsAndAnswerARect(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, _ in
            let config = #"{"style":"shelf","itemSize":[80,120],"headerHeight":30}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let base = "/catalogs/shelf/layout?config=\(config)&width=390&height=300"
            var all: [[String: Any]] = []
            try await client.execute(uri: base + "&include=items", method: .get) { response in
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect(object["revision"] as? Int == 1)
                #expect(object["fadePoint"] == nil)
                all = try #require(object["elements"] as? [[String: Any]])
            }
            let cells = all.filter { $0["kind"] as? String == "cell" }
            #expect(cells.map { $0["id"] as? String } == ["a0", "a1", "b0"])
            #expect(cells.map { $0["title"] as? String } == ["a 0", "a 1", "b 0"])
            #expect(cells.map { $0["section"] as? String } == ["a", "a", "b"])
            let headers = all.filter { $0["kind"] as? String == "header" }
            #expect(headers.map { $0["id"] as? String } == ["a", "b", "c"])
            #expect(headers.map { $0["count"] as? Int } == [2, 1, 0])
            #expect(headers.map { $0["capacity"] as? Int } == [2, 2, 2])
            // Where cells appear from and go to: a circular layout's centre, no point for the others.
            let circular = #"{"style":"circular"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(circular)&width=390&height=300&include=items", method: .get) { response in
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect(object["fadePoint"] as? [Double] == [195, 150])
            }
            // Without include, the document is as before: no ids, no revision.
            try await client.execute(uri: base, method: .get) { response in
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect(object["revision"] == nil)
                #expect(object["fadePoint"] == nil)
                #expect((object["elements"] as? [[String: Any]])?.allSatisfy { $0["id"] == nil } == true)
            }
            // A rect: exactly the elements whose frames meet it (checked against the whole layout).
            let rect = (x: 0.0, y: 170.0, width: 390.0, height: 100.0)
            func meets(_ element: [String: Any]) -> Bool {
                guard let frame = element["frame"] as? [Double] else { return false }
                return frame[0] < rect.x + rect.width && frame[0] + frame[2] > rect.x && frame[1] < rect.y + rect.height && frame[1] + frame[3] > rect.y
            }
            let expected = Set(all.filter(meets).map { "\($0["kind"]!) \($0["id"]!)" })
            #expect(!expected.isEmpty && expected.count < all.count)
            try await client.execute(uri: base + "&include=items&rect=0,170,390,100", method: .get) { response in
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                let elements = try #require(object["elements"] as? [[String: Any]])
                #expect(Set(elements.map { "\($0["kind"]!) \($0["id"]!)" }) == expected)
            }
            // One prepared layout answers every offset and rect of a revision; a write lays out again.
            let pinned = #"{"style":"flow","itemSize":[80,120],"headerHeight":30,"pinHeaders":true}"#
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            func headerY(_ section: String, offset: Int) async throws -> Double? {
                var y: Double?
                try await client.execute(uri: "/catalogs/shelf/layout?config=\(pinned)&width=390&height=300&include=items&offset=0,\(offset)",
                                         method: .get) { response in
                    let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                    let elements = try #require(object["elements"] as? [[String: Any]])
                    y = (elements.first { $0["kind"] as? String == "header" && $0["id"] as? String == section }?["frame"] as? [Double])?[1]
                }
                return y
            }
            let (atTop, scrolled) = (try await headerY("a", offset: 0), try await headerY("a", offset: 60))
            #expect(atTop == 0 && scrolled == 60, "the pinned header follows the offset: \(String(describing: atTop)), \(String(describing: scrolled))")
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: ServerTests.body(#"{"item": "b0", "toSection": "c"}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: base + "&include=items", method: .get) { response in
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect(object["revision"] as? Int == 2)
                let elements = try #require(object["elements"] as? [[String: Any]])
                #expect(elements.first { $0["id"] as? String == "b0" }?["section"] as? String == "c")
            }
            for bad in ["rect=1,2,3", "rect=0,0,-1,5", "rect=a,b,c,d", "rect=0,0,nan,1", "rect=0,,1,1",
                        "offset=a,b", "offset=1,2,3", "offset=inf,0"] {
                try await client.execute(uri: base + "&\(bad)", method: .get) { try ServerTests.problem($0, status: 400, kind: "invalid-parameter") }
            }
            // A single integer is a view's window (docs/Views.md), which must be an integer.
            try await client.execute(uri: base + "&offset=1", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: base + "&offset=1.5", method: .get) { try ServerTests.problem($0, status: 400, kind: "invalid-view") }
        }
    }

    @Test(arguments: Backend.available)
    func theHistoryHasOneChangesetPerWriteNewestFirst(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, _ in
            for (item, section) in [("a0", "c"), ("b0", "c"), ("a1", "b")] {
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                         headers: [.contentType: "application/json"], body: ServerTests.body(#"{"item": "\#(item)", "toSection": "\#(section)"}"#)) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: "/catalogs/shelf/history?count=3", method: .get) { response in
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect(object["revision"] as? Int == 4)
                let revisions = try #require(object["revisions"] as? [[String: Any]])
                #expect(revisions.map { $0["toRevision"] as? Int } == [4, 3, 2])
                #expect(revisions.map { $0["fromRevision"] as? Int } == [3, 2, 1])
                #expect(revisions.allSatisfy { $0["summary"] as? String == "stage 1: 1 item moved" })
                // The last write: a1, item 0 of a (a0 had gone), to the end of b.
                let moved = (revisions[0]["stages"] as? [[String: Any]])?.first?["items"] as? [String: Any]
                #expect((moved?["moved"] as? [[[Int]]]) == [[[0, 0], [1, 0]]])
            }
            // Past the first write: what the journal has, down to the import.
            try await client.execute(uri: "/catalogs/shelf/history?count=200", method: .get) { response in
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect((object["revisions"] as? [[String: Any]])?.map { $0["toRevision"] as? Int } == [4, 3, 2, 1])
            }
            for bad in ["0", "201", "x"] {
                try await client.execute(uri: "/catalogs/shelf/history?count=\(bad)", method: .get) { try ServerTests.problem($0, status: 400, kind: "invalid-parameter") }
            }
            try await client.execute(uri: "/catalogs/nothing/history", method: .get) { try ServerTests.problem($0, status: 404, kind: "unknown-catalog") }
        }
    }
}
