import Foundation

/// What one load run measured: throughput and latency percentiles over every request.
struct LoadResult: Sendable {
    var requests: Int
    var perSecond: Double
    var p50: Double
    var p99: Double
}

/// Drives a server with [wrk](https://github.com/wg/wrk) from a process of its own: a client in
/// the server's process competes with it for the same cores and costs more per request than wrk
/// does.
///
/// Each run is `wrk -t1 -c<connections> -d<seconds>s --latency -s <script>`, after one second
/// of the same load that is not counted; the script
/// replays a list of prepared requests (cheap for wrk: no per-request formatting), counts 5xx
/// answers, and prints one line the benchmark reads back.
struct WrkLoad: Sendable {
    let executable: String
    let connections: Int
    let seconds: Int

    /// One request of the list a run replays.
    struct Request: Sendable {
        var method: String = "GET"
        var path: String
        var body: String?
        /// Sent as `Authorization`, when set.
        var authorization: String? = nil
    }

    /// `wrk` on `PATH`, if installed (Debian: `apt-get install wrk`).
    static func find() -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/wrk" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Replays `requests` in turn against `http://127.0.0.1:<port>` for `seconds`.
    ///
    /// - Throws: ``HTTPBenchmarkError`` when wrk fails, its report cannot be read, or the server
    ///   answered any request with a 5xx status.
    func run(port: Int, requests: [Request]) async throws -> LoadResult {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-bench-\(getpid())-\(UUID().uuidString).lua")
        try Self.script(requests).write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        func arguments(_ seconds: Int) -> [String] {
            ["-t1", "-c\(connections)", "-d\(seconds)s", "--latency", "-s", script.path, "http://127.0.0.1:\(port)"]
        }
        // A second of the same load first, not counted: caches fill (a change feed's first answer
        // for each revision costs milliseconds), connections open, the write-ahead log grows.
        _ = try Self.parse(try await Self.runProcess(executable, arguments(1)))
        return try Self.parse(try await Self.runProcess(executable, arguments(seconds)))
    }

    /// The Lua script: the requests formatted once in `init`, handed out round-robin; 5xx
    /// answers counted per thread and summed in `done`, which prints the line ``parse(_:)`` reads.
    static func script(_ requests: [Request]) -> String {
        func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let list = requests.map { request in
            "{\(quoted(request.method)), \(quoted(request.path)), \(request.body.map(quoted) ?? "nil"), \(request.authorization.map(quoted) ?? "nil")}"
        }.joined(separator: ",\n  ")
        return """
            local specs = {
              \(list)
            }
            local prepared = {}
            local turn = 0
            local threads = {}
            server_errors = 0
            refused = 0

            function setup(thread)
              table.insert(threads, thread)
            end

            function init(args)
              for i, spec in ipairs(specs) do
                local headers = {}
                if spec[3] ~= nil then headers["Content-Type"] = "application/json" end
                if spec[4] ~= nil then headers["Authorization"] = spec[4] end
                prepared[i] = wrk.format(spec[1], spec[2], headers, spec[3])
              end
            end

            function request()
              turn = turn % #prepared + 1
              return prepared[turn]
            end

            function response(status, headers, body)
              if status >= 500 then server_errors = server_errors + 1 end
              if status == 401 or status == 403 then refused = refused + 1 end
            end

            function done(summary, latency, requests)
              local errors = 0
              local refusals = 0
              for _, thread in ipairs(threads) do
                errors = errors + thread:get("server_errors")
                refusals = refusals + thread:get("refused")
              end
              io.write(string.format("catalog-bench: requests=%d duration_us=%d p50_us=%d p99_us=%d server_errors=%d refused=%d socket_errors=%d\\n",
                summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), errors, refusals,
                summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
            end

            """
    }

    /// Reads the script's report line out of wrk's output.
    static func parse(_ output: String) throws -> LoadResult {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("catalog-bench: ") }) else {
            throw HTTPBenchmarkError.loadGenerator("wrk printed no report:\n\(output)")
        }
        var fields: [String: Int] = [:]
        for pair in line.dropFirst("catalog-bench: ".count).split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let requests = fields["requests"], let duration = fields["duration_us"], duration > 0,
              let p50 = fields["p50_us"], let p99 = fields["p99_us"], let errors = fields["server_errors"] else {
            throw HTTPBenchmarkError.loadGenerator("cannot read wrk's report: \(line)")
        }
        guard errors == 0 else { throw HTTPBenchmarkError.serverError(count: errors) }
        if let refused = fields["refused"], refused > 0 { throw HTTPBenchmarkError.loadGenerator("the server refused \(refused) request(s) with 401 or 403") }
        return LoadResult(requests: requests, perSecond: Double(requests) / (Double(duration) / 1e6),
                          p50: Double(p50) / 1_000, p99: Double(p99) / 1_000)
    }

    /// Runs a program to its end off the caller's task, returning what it printed.
    static func runProcess(_ executable: String, _ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let finished: (status: Int32, output: String)
                do {
                    finished = try ServerProcess.run(executable, arguments)
                } catch {
                    continuation.resume(throwing: HTTPBenchmarkError.loadGenerator("cannot start \(executable): \(error)"))
                    return
                }
                guard finished.status == 0 else {
                    continuation.resume(throwing: HTTPBenchmarkError.loadGenerator("\(executable) exited with \(finished.status):\n\(finished.output)"))
                    return
                }
                continuation.resume(returning: finished.output)
            }
        }
    }
}
