import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import Testing

/// docs/HTTP-API.md, "Security": what a web page, a rebound DNS name and each kind of
/// credential may do, through HTTP against a live server.
@Suite struct SecurityTests {
    typealias Server = ServerTests

    static let json: HTTPFields = [.contentType: "application/json"]
    static let moveBody = #"{"item": "a0", "toSection": "c", "index": 0}"#

    static func catalogues(_ store: any CatalogDatabase) async throws -> [String] {
        try await store.summaries().map(\.name)
    }

    // MARK: Browsers

    @Test(arguments: Backend.available)
    func aPageOfAnotherOriginCannotWrite(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            let deletion = Server.body(#"{"operations":[{"op":"deleteSection","id":"a"}]}"#)
            // What `fetch(…, {mode: "no-cors", body: "…"})` sends: text/plain, no preflight.
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post,
                                     headers: [.contentType: "text/plain;charset=UTF-8", .origin: "http://evil.example", HTTPField.Name("Sec-Fetch-Site")!: "cross-site"],
                                     body: deletion) { try Server.problem($0, status: 403, kind: "cross-origin") }
            // The same page with a JSON type (which would need a preflight the server never answers).
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post,
                                     headers: [.contentType: "application/json", .origin: "http://evil.example"], body: deletion) {
                try Server.problem($0, status: 403, kind: "cross-origin")
            }
            // Without Origin (some browsers' navigations), Sec-Fetch-Site still tells.
            try await client.execute(uri: "/catalogs/shelf", method: .delete, headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-site"]) {
                try Server.problem($0, status: 403, kind: "cross-origin")
            }
            // A body that is not JSON, from anyone: no simple request can send JSON.
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: type], body: deletion) {
                    try Server.problem($0, status: 415, kind: "unsupported-media-type")
                }
            }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, body: Server.body(Self.moveBody)) {
                try Server.problem($0, status: 415, kind: "unsupported-media-type")
            }
            let shelf = try await store.catalog(named: "shelf")
            #expect(shelf.revision == 1 && shelf.sections.map(\.id) == ["a", "b", "c"])
            // The server's own origin (the console) and clients that send no Origin still write.
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json", .origin: "http://localhost", HTTPField.Name("Sec-Fetch-Site")!: "same-origin"],
                                     body: Server.body(Self.moveBody)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: Self.json,
                                     body: Server.body(#"{"item": "a0", "toSection": "a", "index": 0}"#)) { #expect($0.status == .ok) }
            // A page reads nothing cross-origin: no CORS header for an origin not allowed.
            try await client.execute(uri: "/catalogs", method: .get, headers: [.origin: "http://evil.example"]) {
                #expect($0.status == .ok && $0.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }

    /// The status of `method path` sent with exactly `Host: host` on a connection of its own.
    static func status(port: Int, _ method: String, _ path: String, host: String, headers: String = "", body: String = "") async throws -> Int {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        #expect(connection.send("\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n\(headers)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"))
        _ = await connection.awaitResponses(1)
        let statusLine = connection.text.split(separator: "\r\n").first ?? ""
        return Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test(arguments: Backend.available)
    func aReboundHostNameIsNotAnswered(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            let port = try #require(client.port)
            for host in ["evil.example:8080", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io:8080", "a_b!"] {
                #expect(try await Self.status(port: port, "GET", "/catalogs", host: host) == 421, "\(host)")
                #expect(try await Self.status(port: port, "DELETE", "/catalogs/shelf", host: host) == 421, "\(host)")
            }
            #expect(try await Self.catalogues(store) == ["shelf"])
            for host in ["localhost", "localhost:8080", "LOCALHOST.", "app.localhost:1", "127.0.0.1:8080", "[::1]:8080", "192.168.1.20:8080"] {
                #expect(try await Self.status(port: port, "GET", "/catalogs", host: host) == 200, "\(host)")
            }
        }
        try await Server.withServer(ServerConfiguration(port: 0, browser: BrowserPolicy(allowedHosts: ["catalog.example.com"]))) { client, _ in
            let port = try #require(client.port)
            #expect(try await Self.status(port: port, "GET", "/catalogs", host: "catalog.example.com") == 200)
            #expect(try await Self.status(port: port, "GET", "/catalogs", host: "evil.example") == 421)
            // Behind a proxy that terminates TLS: the page's https origin, a bare Host.
            #expect(try await Self.status(port: port, "POST", "/catalogs/shelf/moves", host: "catalog.example.com",
                                          headers: "Content-Type: application/json\r\nOrigin: https://catalog.example.com\r\n", body: Self.moveBody) == 200)
            #expect(try await Self.status(port: port, "POST", "/catalogs/shelf/moves", host: "catalog.example.com",
                                          headers: "Content-Type: application/json\r\nOrigin: https://evil.example\r\n", body: Self.moveBody) == 403)
        }
    }

    @Test func anAllowedOriginGetsCORS() async throws {
        let policy = BrowserPolicy(allowedOrigins: ["https://console.example.com"])
        try await Server.withServer(ServerConfiguration(port: 0, browser: policy)) { client, _ in
            try await client.execute(uri: "/catalogs/shelf/moves", method: .options,
                                     headers: [.origin: "https://console.example.com", .accessControlRequestMethod: "POST"]) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == "https://console.example.com")
                #expect(response.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)
            }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .options, headers: [.origin: "https://evil.example"]) {
                try Server.problem($0, status: 403, kind: "cross-origin")
            }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json", .origin: "https://console.example.com"], body: Server.body(Self.moveBody)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "https://console.example.com")
                #expect(response.headers[.vary] == "Origin")
            }
        }
    }

    // MARK: Routes and credentials

    /// A request for each route, its path parameters filled in.
    static func request(for route: String) -> (method: HTTPRequest.Method, uri: String, body: ByteBuffer?) {
        let parts = route.split(separator: " ", maxSplits: 1)
        let method = HTTPRequest.Method(String(parts[0]))!
        var path = String(parts[1]).replacingOccurrences(of: "{name}", with: "shelf").replacingOccurrences(of: "{file}", with: "app.js")
        switch path {
        // A revision not reached: answered at once, not a stream that never ends.
        case "/catalogs/shelf/events", "/catalogs/shelf/changes": path += "?since=999999"
        case "/catalogs/shelf/layout": path += "?width=390&height=600&config=%7B%22style%22%3A%22flow%22%7D"
        default: break
        }
        let body: ByteBuffer? = switch method {
        // The streams of many catalogues: refused (shelf named twice) once the credential passed.
        case .post where path == "/events": Server.body(#"{"catalogs": [{"name": "shelf"}, {"name": "shelf"}]}"#)
        case .post: path.hasSuffix("/writes") ? Server.body("[]") : Server.body(moveBody)
        case .put: Server.body(#"{"sections": []}"#)
        default: nil
        }
        return (method, path, body)
    }

    @Test func everyRouteIsInTheAccessTable() {
        #expect(!CatalogServer.routes.isEmpty)
        for route in CatalogServer.routes {
            #expect(RouteAccess.table[route] != nil, "\(route) is missing from RouteAccess.table: it would need admin")
        }
        #expect(Set(RouteAccess.table.keys) == Set(CatalogServer.routes), "the table names routes the server does not have")
    }

    /// Every route × no credential, read, write, admin, another catalogue's, an expired JWT and
    /// one with a bad signature, each through HTTP, with and without `--protect-reads`.
    @Test(arguments: Backend.available)
    func everyRouteNeedsItsScope(backend: Backend) async throws {
        let signer = try await TestJWTs()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("tokens").path
        try """
            # the tests' tokens
            reader  \(TokenFile.hash("t-read"))  read
            writer  \(TokenFile.hash("t-write"))  write  shelf
            other   \(TokenFile.hash("t-other"))  admin  archive,more
            """.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let credentials = try ServerCredentials(token: "t-admin", tokenFile: tokenFile, jwt: try await signer.verifier())
        let now = Date().timeIntervalSince1970
        // Each kind's name, token, scope and whether it reaches only other catalogues.
        let kinds: [(String, String?, AccessScope?, Bool)] = [
            ("none", nil, nil, false),
            ("static read", "t-read", .read, false), ("static write", "t-write", .write, false), ("static admin", "t-admin", .admin, false),
            ("jwt read", try await signer.sign(scope: "catalogs:read", exp: now + 86_400), .read, false),
            ("jwt write", try await signer.sign(scope: "openid catalogs:write", exp: now + 86_400, catalogs: ["shelf"]), .write, false),
            ("jwt admin", try await signer.sign(scope: "catalogs:admin", exp: now + 86_400, catalogs: ["*"]), .admin, false),
            ("another catalogue's", "t-other", .admin, true),
            ("jwt another catalogue's", try await signer.sign(scope: "catalogs:admin", exp: now + 86_400, catalogs: ["archive"]), .admin, true),
            ("expired jwt", try await signer.sign(scope: "catalogs:admin", exp: now - 3_600), nil, false),
            ("bad signature", try await TestJWTs().sign(scope: "catalogs:admin", exp: now + 86_400), nil, false),
        ]
        for protectReads in [false, true] {
            let configuration = ServerConfiguration(port: 0, credentials: credentials, protectReads: protectReads)
            try await Server.withServer(on: backend, configuration) { client, _ in
                for route in CatalogServer.routes {
                    let access = RouteAccess.of(route)
                    let (method, uri, body) = Self.request(for: route)
                    for (kind, token, scope, elsewhere) in kinds {
                        var headers = Self.json
                        if let token { headers[.authorization] = "Bearer \(token)" }
                        let status = try await client.execute(uri: uri, method: method, headers: headers, body: body) { $0.status.code }
                        let refused = status == 401 || status == 403
                        switch access {
                        case .open where route == "GET /access" && (kind.contains("expired") || kind.contains("signature")):
                            // The one open route that reads the credential: it says it is refused.
                            #expect(status == 401, "\(route), \(kind): \(status)")
                        case .open:
                            #expect(!refused, "\(route) is open, \(kind) got \(status)")
                        case .scope(let needed):
                            let needsCredential = needed > .read || protectReads
                            // A credential for other catalogues still lists the ones it reaches (none).
                            let allowed = !needsCredential || (scope.map { $0 >= needed } ?? false) && (!elsewhere || route == "GET /catalogs")
                            #expect(refused != allowed, "\(route) needs \(needed), \(kind) (protect reads: \(protectReads)) got \(status)")
                            if refused {
                                // No credential or a bad one: 401; a good one short of the route: 403.
                                let bad = token == nil || kind.contains("expired") || kind.contains("signature")
                                #expect(status == (bad ? 401 : 403), "\(route), \(kind): \(status)")
                            }
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: Backend.available)
    func metricsWithATrailingSlashNeedTheToken(backend: Backend) async throws {
        try await Server.withServer(on: backend, ServerConfiguration(port: 0, token: "s3cret")) { client, _ in
            for path in ["/metrics", "/metrics/", "//metrics", "/metrics//", "/./metrics"] {
                let status = try await client.execute(uri: path, method: .get) { $0.status.code }
                #expect(status == 401 || status == 404, "\(path): \(status)")
            }
            try await client.execute(uri: "/metrics/", method: .get, headers: [.authorization: "Bearer s3cret"]) { #expect($0.status == .ok) }
        }
    }

    @Test func aCredentialForSomeCataloguesListsOnlyThose() async throws {
        let signer = try await TestJWTs()
        let credentials = try ServerCredentials(jwt: try await signer.verifier())
        try await Server.withServer(ServerConfiguration(port: 0, credentials: credentials, protectReads: true)) { client, store in
            try store.replace(Catalog(name: "archive", sections: [Section(id: "x", kind: .bookshelf)]))
            let token = try await signer.sign(scope: "catalogs:read", exp: Date().timeIntervalSince1970 + 600, catalogs: ["archive"])
            try await client.execute(uri: "/catalogs", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                let names = try #require(try Server.json(response.body) as? [[String: Any]]).compactMap { $0["name"] as? String }
                #expect(names == ["archive"])
            }
            try await client.execute(uri: "/catalogs/shelf", method: .get, headers: [.authorization: "Bearer \(token)"]) {
                try Server.problem($0, status: 403, kind: "forbidden-catalog")
            }
            // The streams of many catalogues: each must be reached.
            let streams: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
            try await client.execute(uri: "/events", method: .post, headers: streams,
                                     body: ByteBuffer(string: #"{"catalogs": [{"name": "archive"}, {"name": "shelf"}]}"#)) {
                try Server.problem($0, status: 403, kind: "forbidden-catalog")
            }
            let port = try #require(client.port)
            let reached = try RawConnection(port: port)
            reached.openEventStreams(#"{"catalogs": [{"name": "archive"}]}"#, headers: ["Authorization": "Bearer \(token)"])
            let events = await reached.awaitEvents(1)
            #expect(events.first?.event == "snapshot" && events.first?.catalog == "archive", "\(reached.text.prefix(300))")
        }
    }

    // MARK: JWTs

    @Test func badJWTsAreRefusedWithOneReason() async throws {
        let signer = try await TestJWTs()
        let credentials = try ServerCredentials(jwt: try await signer.verifier(audience: "catalogkit"))
        let now = Date().timeIntervalSince1970
        let good = try await signer.sign(scope: "catalogs:write", exp: now + 86_400, aud: "catalogkit")
        let parts = good.split(separator: ".").map(String.init)
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let tampered = base64URL(#"{"exp":\#(Int(now) + 86_400),"aud":"catalogkit","scope":"catalogs:admin"}"#)
        let hmac = JWTKeyCollection()
        await hmac.add(hmac: HMACKey(from: signer.publicPEM), digestAlgorithm: .sha256)
        let cases: [(String, String, String)] = [
            ("alg none", base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + parts[1] + ".", "signed with \"none\""),
            ("HS256 with the public key as its secret",
             try await hmac.sign(TestClaims(exp: now + 86_400, aud: "catalogkit", scope: "catalogs:admin")), "signed with \"HS256\""),
            ("expired", try await signer.sign(scope: "catalogs:write", exp: now - 3_600, aud: "catalogkit"), "expired"),
            ("not yet valid", try await signer.sign(scope: "catalogs:write", exp: now + 86_400, nbf: now + 3_600, aud: "catalogkit"), "not valid yet"),
            ("no exp", try await signer.sign(scope: "catalogs:write", exp: nil, aud: "catalogkit"), "no exp"),
            ("wrong audience", try await signer.sign(scope: "catalogs:write", exp: now + 86_400, aud: "another"), "aud"),
            ("tampered payload", parts[0] + "." + tampered + "." + parts[2], "signature"),
            ("no scope", try await signer.sign(scope: nil, exp: now + 86_400, aud: "catalogkit"), "no scope"),
            ("other scopes only", try await signer.sign(scope: "openid email", exp: now + 86_400, aud: "catalogkit"), "names none"),
            ("catalogs not an array", try await signer.sign(TestClaims(exp: now + 86_400, aud: "catalogkit", scope: "catalogs:write", catalogsText: "shelf")), "array"),
            ("40 KB", parts[0] + "." + String(repeating: "A", count: 40_000) + "." + parts[2], "more than"),
            ("not a JWT", "a.b.c", "not a JWT"),
        ]
        try await Server.withServer(ServerConfiguration(port: 0, credentials: credentials)) { client, store in
            for (name, token, reason) in cases {
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                         headers: [.contentType: "application/json", .authorization: "Bearer \(token)"], body: Server.body(Self.moveBody)) { response in
                    try Server.problem(response, status: 401, kind: "unauthorized")
                    let detail = try #require(try Server.json(response.body) as? [String: Any])["detail"] as? String ?? ""
                    #expect(detail.contains(reason), "\(name): \(detail)")
                    #expect(!detail.contains(token.prefix(20)), "\(name): the problem echoes the token")
                }
            }
            #expect(try store.catalog(named: "shelf").revision == 1)
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json", .authorization: "Bearer \(good)"], body: Server.body(Self.moveBody)) {
                #expect($0.status == .ok)
            }
        }
    }

    /// A minute of leeway either side, on a clock the test gives: also for a token kept verified.
    @Test func expiryAndNotBeforeHaveAMinuteOfLeeway() async throws {
        let signer = try await TestJWTs()
        let verifier = try await signer.verifier()
        let t = 2_000_000_000.0
        let token = try await signer.sign(scope: "catalogs:read", exp: t, nbf: t - 1_000)
        func accepted(at seconds: Double) async -> Bool {
            (try? await verifier.grant(for: token, now: Date(timeIntervalSince1970: seconds)).get()) != nil
        }
        #expect(await !accepted(at: t - 1_000 - 61))
        #expect(await accepted(at: t - 1_000 - 59))
        #expect(await accepted(at: t + 59))
        #expect(await !accepted(at: t + 61))
    }

    @Test func keysOfEachAlgorithmVerify() async throws {
        let now = Date().timeIntervalSince1970
        let claims = TestClaims(exp: now + 86_400, scope: "catalogs:read")
        let ed = try EdDSA.PrivateKey()
        let edKeys = JWTKeyCollection()
        await edKeys.add(eddsa: ed)
        let es = ES256PrivateKey()
        let esKeys = JWTKeyCollection()
        await esKeys.add(ecdsa: es)
        let verifier = try await JWTVerifier(pems: [("keys.pem", ed.publicKey.pemRepresentation + "\n" + es.publicKey.pemRepresentation)], audience: nil)
        for token in [try await edKeys.sign(claims), try await esKeys.sign(claims)] {
            let result = await verifier.grant(for: token)
            #expect((try? result.get())?.scope == .read, "\(result) \(token)")
        }
        await #expect(throws: JWTKeyError.self) { try await JWTVerifier(pems: [("key.pem", es.pemRepresentation)], audience: nil) }
        await #expect(throws: JWTKeyError.self) { try await JWTVerifier(pems: [("key.pem", "not a key")], audience: nil) }
    }

    // MARK: Token files

    @Test func tokenFilesAreReadWithTheirLineNumbers() throws {
        let hash = TokenFile.hash("x")
        let file = try TokenFile(parsing: "# c\n\nops \(hash) admin\napp \(TokenFile.hash("y")) catalogs:write a%2Cb,c # two\n")
        #expect(file.grant(for: "x") == AccessGrant(holder: "ops", scope: .admin))
        #expect(file.grant(for: "y") == AccessGrant(holder: "app", scope: .write, catalogs: ["a,b", "c"]))
        #expect(file.grant(for: "z") == nil)
        for (text, line, reason) in [("ops \(hash)", 1, "expected NAME"), ("\n\nops abc admin", 3, "64 hex"), ("ops \(hash) owner", 1, "scope"),
                                     ("a \(hash) read\nb \(hash) read", 2, "hash"), ("a \(hash) read\na \(TokenFile.hash("q")) read", 2, "name"),
                                     ("a \(hash) read ,", 1, "catalogues")] {
            #expect(throws: TokenFileError.self) { try TokenFile(parsing: text) }
            do { _ = try TokenFile(parsing: text) } catch {
                #expect(error.line == line && error.reason.contains(reason), "\(text): \(error)")
            }
        }
        // The hash in the file, in either case, is the token's SHA-256 (a known vector).
        #expect(TokenFile.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try TokenFile(parsing: "up \(TokenFile.hash("abc").uppercased()) read").grant(for: "abc")?.holder == "up")
        #expect(TokenHash(hex: String(repeating: "g", count: 64)) == nil && TokenHash(hex: "abc") == nil)
        let (token, line) = TokenFile.newToken(name: "app", scope: .write, catalogs: ["my shelf"])
        #expect(try TokenFile(parsing: line).grant(for: token) == AccessGrant(holder: "app", scope: .write, catalogs: ["my shelf"]))
    }

    @Test func aReloadedTokenFileAddsAndRevokes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "a \(TokenFile.hash("first")) write\n".write(toFile: path, atomically: true, encoding: .utf8)
        let credentials = try ServerCredentials(tokenFile: path)
        try await Server.withServer(ServerConfiguration(port: 0, credentials: credentials)) { client, _ in
            func status(_ token: String) async throws -> Int {
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                         headers: [.contentType: "application/json", .authorization: "Bearer \(token)"],
                                         body: Server.body(#"{"item": "b0", "toSection": "b", "index": 0}"#)) { Int($0.status.code) }
            }
            #expect(try await status("first") == 200)
            #expect(try await status("second") == 401)
            try "b \(TokenFile.hash("second")) write\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try credentials.reloadTokenFile() == 1)
            #expect(try await status("first") == 401)
            #expect(try await status("second") == 200)
            try "b \(TokenFile.hash("second")) writer\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: TokenFileError.self) { try credentials.reloadTokenFile() }
            #expect(try await status("second") == 200)
        }
    }
}

/// An ES256 key pair that signs the tests' JWTs.
struct TestJWTs {
    let key = ES256PrivateKey()
    let keys = JWTKeyCollection()

    init() async throws { await keys.add(ecdsa: key) }

    var publicPEM: String { key.publicKey.pemRepresentation }

    func verifier(audience: String? = nil) async throws -> JWTVerifier {
        try await JWTVerifier(pems: [("test.pem", publicPEM)], audience: audience)
    }

    func sign(scope: String?, exp: Double?, nbf: Double? = nil, aud: String? = nil, catalogs: [String]? = nil) async throws -> String {
        try await sign(TestClaims(exp: exp, nbf: nbf, aud: aud, scope: scope, catalogs: catalogs))
    }

    func sign(_ claims: TestClaims) async throws -> String { try await keys.sign(claims) }
}

/// Any claims, well formed or not.
struct TestClaims: JWTPayload {
    var exp: Double?
    var nbf: Double? = nil
    var aud: String? = nil
    var scope: String?
    var catalogs: [String]? = nil
    /// `catalogs` as a string, not an array.
    var catalogsText: String? = nil

    enum CodingKeys: String, CodingKey { case exp, nbf, aud, scope, catalogs }

    init(exp: Double?, nbf: Double? = nil, aud: String? = nil, scope: String?, catalogs: [String]? = nil, catalogsText: String? = nil) {
        (self.exp, self.nbf, self.aud, self.scope, self.catalogs, self.catalogsText) = (exp, nbf, aud, scope, catalogs, catalogsText)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        exp = try container.decodeIfPresent(Double.self, forKey: .exp)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(exp, forKey: .exp)
        try container.encodeIfPresent(nbf, forKey: .nbf)
        try container.encodeIfPresent(aud, forKey: .aud)
        try container.encodeIfPresent(scope, forKey: .scope)
        if let catalogsText { try container.encode(catalogsText, forKey: .catalogs) } else { try container.encodeIfPresent(catalogs, forKey: .catalogs) }
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension SecurityTests {
    /// `GET /access`: what the console shows and hides by.
    @Test func theAccessRouteSaysWhatACredentialMayDo() async throws {
        try await Server.withServer { client, _ in
            try await client.execute(uri: "/access", method: .get) { response in
                let object = try #require(try Server.json(response.body) as? [String: Any])
                #expect(object["checked"] as? Bool == false && object["scope"] as? String == "catalogs:admin")
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "app \(TokenFile.hash("t")) write shelf,b\n".write(toFile: path, atomically: true, encoding: .utf8)
        let credentials = try ServerCredentials(tokenFile: path)
        try await Server.withServer(ServerConfiguration(port: 0, credentials: credentials, protectReads: true)) { client, _ in
            try await client.execute(uri: "/access", method: .get, headers: [.authorization: "Bearer t"]) { response in
                let object = try #require(try Server.json(response.body) as? [String: Any])
                #expect(object["checked"] as? Bool == true && object["readsNeedCredential"] as? Bool == true)
                #expect(object["holder"] as? String == "app" && object["scope"] as? String == "catalogs:write")
                #expect(object["catalogs"] as? [String] == ["b", "shelf"])
            }
            try await client.execute(uri: "/access", method: .get) { response in
                let object = try #require(try Server.json(response.body) as? [String: Any])
                #expect(object["scope"] is NSNull)
            }
            try await client.execute(uri: "/access", method: .get, headers: [.authorization: "Bearer nope"]) {
                try Server.problem($0, status: 401, kind: "unauthorized")
            }
        }
    }
}
