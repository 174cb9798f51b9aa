import CatalogModel
import CatalogServer
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging

/// `catalog bench http`: the API on loopback under 64 concurrent keep-alive connections —
/// `GET /catalogs/{name}` of a 1,000-item catalogue, `POST …/moves` and `GET …/changes?since=` —
/// requests per second and p50/p99 latency. Baseline, same run and same server: a route that
/// answers a constant body of the snapshot's size (what the HTTP stack alone costs).
public struct HTTPBenchmark: Sendable {
    public var connections: Int
    public var requestsPerConnection: Int

    public init(connections: Int = 64, requestsPerConnection: Int = 200) {
        self.connections = connections
        self.requestsPerConnection = requestsPerConnection
    }

    public func run(log: @escaping @Sendable (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        let result = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { result.value = .success(try await measure(log: log)) } catch { result.value = .failure(error) }
            done.signal()
        }
        done.wait()
        return try result.value!.get()
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
        let bookIDs = catalog.sections.flatMap { $0.items.map(\.id) }
        let shelfIDs = catalog.sections.map(\.id)

        // Requests are not logged one by one while measuring.
        var logger = Logger(label: "catalog.bench.http")
        logger.logLevel = .warning
        let app = CatalogServer.application(store: store, configuration: ServerConfiguration(port: 0), logger: logger, extraRoutes: { router in
            router.get("/baseline") { _, _ in Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: constant)) }
        })
        return try await app.test(.live) { client in
            let port = client.port!
            var results: [BenchmarkResult] = []
            func load(_ name: String, _ request: @escaping @Sendable (Int, Int) -> TestClient.Request) async throws -> (perSecond: Double, p50: Double, p99: Double) {
                log("http: \(name), \(connections) connections × \(requestsPerConnection) requests")
                let start = DispatchTime.now().uptimeNanoseconds
                let times = try await withThrowingTaskGroup(of: [Double].self) { group in
                    for c in 0..<connections {
                        group.addTask {
                            let http = TestClient(host: "127.0.0.1", port: port)
                            http.connect()
                            var times: [Double] = []
                            times.reserveCapacity(requestsPerConnection)
                            for n in 0..<requestsPerConnection {
                                let begin = DispatchTime.now().uptimeNanoseconds
                                let response = try await http.execute(request(c, n))
                                guard response.status.code < 500 else { throw HTTPBenchmarkError.serverError(response.status.code) }
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
                return (Double(times.count) / seconds, Clock.percentile(times, 0.5), Clock.percentile(times, 0.99))
            }
            let baseline = try await load("baseline") { _, _ in TestClient.Request("/baseline", method: .get) }
            let snapshot = try await load("GET snapshot") { _, _ in TestClient.Request("/catalogs/shelf", method: .get) }
            let moves = try await load("POST moves") { c, n in
                let book = bookIDs[(c * 7919 + n * 104_729) % bookIDs.count]
                let shelf = shelfIDs[(c * 31 + n * 17) % shelfIDs.count]
                return TestClient.Request("/catalogs/shelf/moves", method: .post,
                                          body: ByteBuffer(string: #"{"item": "\#(book)", "toSection": "\#(shelf)", "index": 0}"#))
            }
            let revision = try store.revision(of: "shelf")
            let changes = try await load("GET changes") { _, n in
                TestClient.Request("/catalogs/shelf/changes?since=\(max(1, revision - 1 - n % 50))", method: .get)
            }
            let rows: [(String, (perSecond: Double, p50: Double, p99: Double))] = [
                ("GET /catalogs/shelf (1,000 items)", snapshot), ("POST /catalogs/shelf/moves", moves),
                ("GET /catalogs/shelf/changes?since=", changes),
            ]
            for (name, measured) in rows {
                results.append(BenchmarkResult(suite: "http", name: "\(name) p50", medianMS: measured.p50,
                                               baseline: "constant body of the same size, p50", baselineMedianMS: baseline.p50, items: 1))
                results.append(BenchmarkResult(suite: "http", name: "\(name) p99", medianMS: measured.p99,
                                               baseline: "constant body of the same size, p99", baselineMedianMS: baseline.p99, items: 1))
                results.append(BenchmarkResult(suite: "http", name: "\(name) requests/s", medianMS: 1_000 / measured.perSecond,
                                               baseline: "constant body: ms per request at \(Int(baseline.perSecond)) requests/s",
                                               baselineMedianMS: 1_000 / baseline.perSecond, items: 1))
            }
            return results
        }
    }
}

enum HTTPBenchmarkError: Error {
    case serverError(Int)
}

private final class ResultBox: @unchecked Sendable {
    var value: Result<[BenchmarkResult], any Error>?
}
