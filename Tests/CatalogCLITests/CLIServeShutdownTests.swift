import CatalogBenchmarks
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `catalog serve` stops on SIGTERM without losing a write it answered.
@Suite("catalog serve shutdown")
struct CLIServeShutdownTests {
    @Test("SIGTERM while moves arrive: the server exits cleanly and every move it answered is stored")
    func sigtermLosesNoAnsweredWrite() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let shown = try #require(try CLIRunner.json(cli.succeed(["show", "bookshelf", "--json", "--db", cli.db])) as? [String: Any])
        let startRevision = try #require(shown["revision"] as? Int)
        let sections = try #require(shown["sections"] as? [[String: Any]])
        // A book moved back and forth inside its own shelf: every move is valid.
        let shelf = try #require(sections.first { section in
            (section["items"] as? [[String: Any]])?.contains { $0["id"] as? String == "b-karamazov" } == true
        }?["id"] as? String)

        let running = try ServerProcess(arguments: ["--db", cli.db], folder: cli.folder)
        let (server, port, logPath) = (running.process, running.port, running.logPath)
        // One client posting moves one after another until the server goes away.
        let answered = Counter()
        let session = URLSession(configuration: .ephemeral)
        let client = Thread {
            for index in 0..<10_000 {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/catalogs/bookshelf/moves")!)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data(#"{"item": "b-karamazov", "toSection": "\#(shelf)", "index": \#(index % 2)}"#.utf8)
                let done = DispatchSemaphore(value: 0)
                let status = Counter()
                session.dataTask(with: request) { _, response, _ in
                    if let code = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(code) { status.increment() }
                    done.signal()
                }.resume()
                done.wait()
                guard status.value == 1 else { break }
                answered.increment()
            }
            answered.finish()
        }
        client.start()
        // Until 40 moves are answered (or the client stopped early: then the checks below fail).
        while answered.value < 40 && !answered.isFinished { usleep(2_000) }
        #expect(answered.value >= 40, "the server stopped answering before SIGTERM")
        server.terminate()  // SIGTERM
        server.waitUntilExit()
        answered.waitUntilFinished()
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)

        // Every answered move is in the database; at most one more (answered as the connection closed).
        let after = try #require(try CLIRunner.json(cli.succeed(["show", "bookshelf", "--json", "--db", cli.db])) as? [String: Any])
        let revision = try #require(after["revision"] as? Int)
        #expect(revision >= startRevision + answered.value && revision <= startRevision + answered.value + 1,
                "revision \(revision), \(answered.value) moves answered from \(startRevision)")
        _ = try cli.succeed(["check", "--db", cli.db])

        // One log line per request on standard error (the default level), with its metadata:
        // "2026-11-22T14:11:33+0000 info catalog.serve: hb.request.id=… hb.request.method=POST
        // hb.request.path=/catalogs/bookshelf/moves [Hummingbird] Request".
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        let requests = log.split(separator: "\n").filter { $0.contains("hb.request.path=/catalogs/bookshelf/moves") }
        #expect(requests.count >= answered.value, "\(log.prefix(500))")
        let pattern = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info catalog\.serve: hb\.request\.id=\S+ hb\.request\.method=POST hb\.request\.path=/catalogs/bookshelf/moves \[Hummingbird\] Request$/#
        #expect(requests.allSatisfy { $0.wholeMatch(of: pattern) != nil }, "\(requests.first ?? "")")
    }

    /// A count shared between threads.
    final class Counter: @unchecked Sendable {
        private let lock = NSCondition()
        private var count = 0
        private var finished = false

        var value: Int { lock.withLock { count } }

        var isFinished: Bool { lock.withLock { finished } }

        func increment() { lock.withLock { count += 1 } }

        func finish() {
            lock.withLock {
                finished = true
                lock.broadcast()
            }
        }

        func waitUntilFinished() {
            lock.lock()
            while !finished { lock.wait() }
            lock.unlock()
        }
    }
}
