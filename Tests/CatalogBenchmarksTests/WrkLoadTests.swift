import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CatalogBenchmarks

/// The wrk driver of `catalog-bench http`: its report is read back exactly, a 5xx answer fails the
/// run, and (where wrk is installed) a real run against a live server.
@Suite("wrk load generator")
struct WrkLoadTests {
    static let report = """
        Running 1s test @ http://127.0.0.1:8080
          1 threads and 64 connections
        catalog-bench: requests=12000 duration_us=2000000 p50_us=5250 p99_us=17400 server_errors=0 socket_errors=0
        Requests/sec:   6000.00
        """

    @Test func readsTheReportLine() throws {
        let result = try WrkLoad.parse(Self.report)
        #expect(result.requests == 12_000)
        #expect(result.perSecond == 6_000)
        #expect(result.p50 == 5.25)
        #expect(result.p99 == 17.4)
    }

    @Test func serverErrorsFailTheRun() {
        let output = Self.report.replacingOccurrences(of: "server_errors=0", with: "server_errors=3")
        #expect {
            try WrkLoad.parse(output)
        } throws: { error in
            if case HTTPBenchmarkError.serverError(count: 3) = error { return true }
            return false
        }
    }

    @Test func aMissingReportIsAnError() {
        #expect(throws: HTTPBenchmarkError.self) { try WrkLoad.parse("unable to connect to 127.0.0.1:1\n") }
        #expect(throws: HTTPBenchmarkError.self) { try WrkLoad.parse("catalog-bench: requests=1\n") }
    }

    @Test func theScriptQuotesBodies() {
        let script = WrkLoad.script([.init(method: "POST", path: "/a", body: #"{"item": "say \"hi\" \\ now"}"#),
                                     .init(path: "/b", authorization: "Bearer t")])
        #expect(script.contains(#"{"POST", "/a", "{\"item\": \"say \\\"hi\\\" \\\\ now\"}", nil}"#))
        #expect(script.contains(#"{"GET", "/b", nil, "Bearer t"}"#))
    }

    /// A live server: bodies arrive as sent, every request is counted, and a route that answers
    /// 500 fails the run.
    @Test(.enabled(if: WrkLoad.find() != nil, "wrk is not installed"), .timeLimit(.minutes(3)))
    func drivesALiveServer() async throws {
        let body = #"{"item": "say \"hi\"", "n": 1}"#
        let router = Router()
        router.post("/echo") { request, _ in
            var request = request
            let received = String(buffer: try await request.collectBody(upTo: 1_000))
            // A body that arrives changed fails the run as a 5xx.
            return Response(status: received == body ? .ok : .internalServerError)
        }
        router.get("/fail") { _, _ in Response(status: .internalServerError) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            // Five seconds: on a machine whose cores are busy with the rest of the suite, a
            // one-second run has ended before this in-process server answered once.
            let wrk = WrkLoad(executable: WrkLoad.find()!, connections: 4, seconds: 5)
            let result = try await wrk.run(port: client.port!, requests: [.init(method: "POST", path: "/echo", body: body)])
            #expect(result.requests > 0 && result.perSecond > 0)
            #expect(result.p50 > 0 && result.p99 >= result.p50)
            await #expect(throws: HTTPBenchmarkError.self) {
                try await wrk.run(port: client.port!, requests: [.init(path: "/fail")])
            }
        }
    }
}
