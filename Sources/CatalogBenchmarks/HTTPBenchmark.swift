import CatalogModel
import CatalogServer
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging

/// `catalog-bench http`: the API on loopback under 64 concurrent keep-alive connections —
/// `GET /catalogs/{name}` of a 1,000-item catalogue, `POST …/moves` and `GET …/changes?since=` —
/// requests per second and p50/p99 latency. Baselines, same run and same server: routes that
/// answer a constant body — of the snapshot's size for the snapshot, of a move's answer's size for
/// moves and change feeds — which is what the HTTP stack alone costs.
///
/// The load comes from wrk in a process of its own when it is installed (``WrkLoad``), else from
/// an in-process client, which shares the server's cores and measures lower.
package struct HTTPBenchmark: Sendable {
    /// Who sends the requests.
    package enum LoadGenerator: Sendable, Equatable {
        /// wrk at this path, for this many seconds a case.
        case wrk(path: String, seconds: Int)
        /// Hummingbird's test client in this process, this many requests a connection.
        case inProcess(requestsPerConnection: Int)

        /// wrk when it is on `PATH`, else the in-process client.
        package static func best(seconds: Int, requestsPerConnection: Int) -> LoadGenerator {
            installedWrk(seconds: seconds) ?? .inProcess(requestsPerConnection: requestsPerConnection)
        }

        /// wrk, when it is on `PATH`.
        package static func installedWrk(seconds: Int) -> LoadGenerator? {
            WrkLoad.find().map { .wrk(path: $0, seconds: seconds) }
        }

        var label: String {
            switch self {
            case .wrk(let path, let seconds): "\(path) -t1, \(seconds) s a case"
            case .inProcess(let n): "in-process client, \(n) requests a connection"
            }
        }
    }

    package var connections: Int
    package var loadGenerator: LoadGenerator
    /// Rounds of every case. A round runs each case once, in turn, so a slow phase of the machine
    /// falls on all of them; each figure is the median over the rounds, and the worst p99 is
    /// reported too (one run's p99 moved by ±20 % between runs here). At least one runs.
    package var rounds: Int

    package init(connections: Int = 64, loadGenerator: LoadGenerator = .best(seconds: 5, requestsPerConnection: 200),
                rounds: Int = 3) {
        self.connections = connections
        self.loadGenerator = loadGenerator
        self.rounds = rounds
    }

    package func run(log: @escaping @Sendable (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        try LiveBenchmark.blocking { try await measure(log: log) }
    }

    private func measure(log: @escaping @Sendable (String) -> Void) async throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-bench-http-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: folder.appendingPathComponent("http.sqlite").path)
        var catalog = Catalog.generated(name: "shelf", items: 1_000, sections: 100, kind: .bookshelf, seed: 5)
        for s in catalog.sections.indices { catalog.sections[s].capacity = 20 }
        try store.replace(catalog)
        let snapshotSize = try store.catalog(named: "shelf").itemCount * 90
        let constant = ByteBuffer(string: String(repeating: "x", count: snapshotSize))
        // About the size of a move's answer (revision and a one-move changeset).
        let small = ByteBuffer(string: String(repeating: "x", count: 120))
        let bookIDs = catalog.sections.flatMap { $0.items.map(\.id) }
        let shelfIDs = catalog.sections.map(\.id)
        // Random books to the front of random shelves; a few find their shelf full (409).
        var random = SplitMix64(seed: 7)
        let moves = (0..<4_096).map { _ in
            WrkLoad.Request(method: "POST", path: "/catalogs/shelf/moves",
                            body: #"{"item": "\#(bookIDs.randomElement(using: &random)!)", "toSection": "\#(shelfIDs.randomElement(using: &random)!)", "index": 0}"#)
        }

        // The log handler `catalog serve` uses; requests are not logged one by one while measuring.
        var logger = Logger(label: "catalog.bench.http", factory: ServerLogHandler.standardError)
        logger.logLevel = .warning
        let app = CatalogServer.application(store: store, configuration: ServerConfiguration(port: 0), logger: logger, extraRoutes: { router in
            router.get("/baseline") { _, _ in Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: constant)) }
            router.post("/baseline-small") { _, _ in Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: small)) }
        })
        // The same moves on a server that checks credentials: a static token, and an ES256 JWT.
        let signing = ES256PrivateKey()
        let signer = JWTKeyCollection()
        await signer.add(ecdsa: signing)
        let jwt = try await signer.sign(BenchmarkClaims(exp: Date().timeIntervalSince1970 + 86_400, scope: "catalogs:write", catalogs: ["shelf"]))
        let credentials = try ServerCredentials(token: "bench-admin-token",
                                                jwt: try await JWTVerifier(pems: [("bench", signing.publicKey.pemRepresentation)], audience: nil))
        let checking = CatalogServer.application(store: store, configuration: ServerConfiguration(port: 0, credentials: credentials), logger: logger)
        let (connections, generator, rounds) = (self.connections, loadGenerator, max(1, self.rounds))
        log("http: load from \(generator.label), \(connections) connections")
        return try await checking.test(.live) { checkingClient in try await app.test(.live) { client in
            let port = client.port!
            let checkingPort = checkingClient.port!
            /// `share`: of the in-process client's requests per connection, for slow cases (wrk runs
            /// every case for the same time).
            func load(_ name: String, _ requests: [WrkLoad.Request], share: Int = 1, port: Int = port) async throws -> LoadResult {
                log("http: \(name)")
                switch generator {
                case .wrk(let path, let seconds):
                    return try await WrkLoad(executable: path, connections: connections, seconds: seconds).run(port: port, requests: requests)
                case .inProcess(let perConnection):
                    return try await Self.loadInProcess(port: port, connections: connections, requestsPerConnection: max(1, perConnection / share),
                                                        requests: requests)
                }
            }
            func presenting(_ authorization: String) -> [WrkLoad.Request] {
                moves.map { var move = $0; move.authorization = authorization; return move }
            }
            var runs: [String: [LoadResult]] = [:]
            for round in 1...rounds {
                if rounds > 1 { log("http: round \(round) of \(rounds)") }
                func measure(_ name: String, _ requests: [WrkLoad.Request], share: Int = 1, port: Int = port) async throws {
                    runs[name, default: []].append(try await load(name, requests, share: share, port: port))
                }
                try await measure("baseline", [WrkLoad.Request(path: "/baseline")])
                try await measure("small baseline", [WrkLoad.Request(method: "POST", path: "/baseline-small", body: moves[0].body)])
                try await measure("GET snapshot", [WrkLoad.Request(path: "/catalogs/shelf")])
                // The moves with and without credentials take turns going first: each case writes
                // to the same database, whose journal and log grow with every move.
                let movesCases: [(String, [WrkLoad.Request], Int)] = [
                    ("POST moves", moves, port),
                    ("POST moves, static token", presenting("Bearer bench-admin-token"), checkingPort),
                    ("POST moves, JWT", presenting("Bearer \(jwt)"), checkingPort),
                ]
                for turn in 0..<movesCases.count {
                    let (name, requests, target) = movesCases[(turn + round - 1) % movesCases.count]
                    try await measure(name, requests, port: target)
                }
                let revision = try store.revision(of: "shelf")
                try await measure("GET changes", (0..<50).map { n in
                    WrkLoad.Request(path: "/catalogs/shelf/changes?since=\(max(1, revision - 1 - n))")
                })
                // Clients 1 to 900 writes behind, each asking for its own revision: more than the
                // response cache keeps (256 entries), so nearly every answer is computed — the
                // journal undone back to that revision, and the diff.
                var behind = Array(1...max(1, min(900, revision - 1)))
                var shuffler = SplitMix64(seed: 9)
                behind.shuffle(using: &shuffler)
                try await measure("GET changes, uncached", behind.map { n in
                    WrkLoad.Request(path: "/catalogs/shelf/changes?since=\(revision - n)")
                }, share: 10)
            }
            var results: [BenchmarkResult] = []
            let rows = [("GET /catalogs/shelf (1,000 items)", "GET snapshot", "baseline", "constant \(snapshotSize / 1_000) kB body"),
                        ("POST /catalogs/shelf/moves", "POST moves", "small baseline", "constant 120 B answer to a POST"),
                        ("POST /catalogs/shelf/moves with a static token (--token)", "POST moves, static token", "POST moves", "the same moves with no credential"),
                        ("POST /catalogs/shelf/moves with an ES256 JWT (--jwt-key)", "POST moves, JWT", "POST moves", "the same moves with no credential"),
                        ("GET /catalogs/shelf/changes?since=", "GET changes", "small baseline", "constant 120 B answer to a POST"),
                        ("GET /catalogs/shelf/changes?since= (1-900 behind, uncached)", "GET changes, uncached", "GET changes", "the same, cached")]
            let over = rounds > 1 ? ", median of \(rounds) runs" : ""
            for (name, measuredName, baseName, label) in rows {
                let measured = LoadSummary(runs[measuredName]!), base = LoadSummary(runs[baseName]!)
                results.append(BenchmarkResult(suite: "http", name: "\(name) p50\(over)", medianMS: measured.p50,
                                               baseline: "\(label), p50", baselineMedianMS: base.p50, items: 1))
                results.append(BenchmarkResult(suite: "http", name: "\(name) p99\(over)", medianMS: measured.p99,
                                               baseline: "\(label), p99", baselineMedianMS: base.p99, items: 1))
                if rounds > 1 {
                    results.append(BenchmarkResult(suite: "http", name: "\(name) p99, worst of \(rounds) runs", medianMS: measured.worstP99,
                                                   baseline: "\(label), p99, worst", baselineMedianMS: base.worstP99, items: 1))
                }
                results.append(BenchmarkResult(suite: "http", name: "\(name) requests/s\(over)", medianMS: 1_000 / measured.perSecond,
                                               baseline: "\(label): \(Int(base.perSecond)) requests/s",
                                               baselineMedianMS: 1_000 / base.perSecond, items: 1))
            }
            // The check alone, as each request makes it: a static token hashed and looked up, a
            // JWT found among those verified (its signature was checked once).
            for (name, token) in [("a static token", "bench-admin-token"), ("an ES256 JWT, kept verified", jwt)] {
                let count = 100_000
                _ = await credentials.grant(for: token)
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<count { guard case .success = await credentials.grant(for: token) else { throw HTTPBenchmarkError.loadGenerator("\(name) refused") } }
                let each = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(count)
                let moveP50 = LoadSummary(runs["POST moves"]!).p50
                results.append(BenchmarkResult(suite: "http", name: "the authorization check, \(name)", medianMS: each,
                                               baseline: "a move's p50 with no credential", baselineMedianMS: moveP50, items: 1))
            }
            return results
        } }
    }

    /// `connections` keep-alive clients in this process, each sending `requestsPerConnection`
    /// requests from the list (client c starts at its own offset) one after another.
    private static func loadInProcess(port: Int, connections: Int, requestsPerConnection: Int,
                                      requests: [WrkLoad.Request]) async throws -> LoadResult {
        let start = DispatchTime.now().uptimeNanoseconds
        let times = try await withThrowingTaskGroup(of: [Double].self) { group in
            for c in 0..<connections {
                group.addTask {
                    let http = TestClient(host: "127.0.0.1", port: port)
                    http.connect()
                    var times: [Double] = []
                    times.reserveCapacity(requestsPerConnection)
                    for n in 0..<requestsPerConnection {
                        let spec = requests[(c * requestsPerConnection + n) % requests.count]
                        var headers: HTTPFields = spec.body == nil ? [:] : [.contentType: "application/json"]
                        if let authorization = spec.authorization { headers[.authorization] = authorization }
                        let request = TestClient.Request(spec.path, method: spec.method == "POST" ? .post : .get, headers: headers,
                                                         body: spec.body.map { ByteBuffer(string: $0) })
                        let begin = DispatchTime.now().uptimeNanoseconds
                        let response = try await http.execute(request)
                        guard response.status.code < 500 else { throw HTTPBenchmarkError.serverError(count: 1) }
                        guard response.status.code != 401 && response.status.code != 403 else {
                            throw HTTPBenchmarkError.loadGenerator("the server refused a request with \(response.status.code)")
                        }
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                    }
                    try await http.shutdown()
                    return times
                }
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return LoadResult(requests: times.count, perSecond: Double(times.count) / seconds,
                          p50: Clock.percentile(times, 0.5), p99: Clock.percentile(times, 0.99))
    }
}

/// The claims of the JWT the http suite's moves present.
struct BenchmarkClaims: JWTPayload {
    var exp: Double
    var scope: String
    var catalogs: [String]

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

enum HTTPBenchmarkError: Error, CustomStringConvertible {
    /// The server answered this many requests with a 5xx status.
    case serverError(count: Int)
    /// The load generator failed or printed nothing readable.
    case loadGenerator(String)

    var description: String {
        switch self {
        case .serverError(let count): "the server answered \(count) request(s) with a 5xx status"
        case .loadGenerator(let message): message
        }
    }
}

/// One case's runs: the medians, and the worst p99.
struct LoadSummary {
    var p50: Double
    var p99: Double
    var worstP99: Double
    var perSecond: Double

    init(_ runs: [LoadResult]) {
        p50 = Clock.median(runs.map(\.p50))
        p99 = Clock.median(runs.map(\.p99))
        worstP99 = runs.map(\.p99).max() ?? 0
        perSecond = Clock.median(runs.map(\.perSecond))
    }
}

