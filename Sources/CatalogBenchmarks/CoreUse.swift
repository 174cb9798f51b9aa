import Foundation

/// How a run divided the machine's cores, read from `/proc` (Linux): the CPU time of the
/// `catalog serve` instances, of PostgreSQL's processes and of the benchmark's own process (its
/// clients and subscribers), and the time no one used, each a share of all cores' time over the
/// run. It says whether a run was bound by the cores, and which part took them. Unavailable
/// (nil) where `/proc` is missing.
package struct CoreUse: Sendable, Equatable {
    package var instances: Double
    package var postgres: Double
    package var clients: Double
    package var idle: Double

    /// Times read at one moment, in clock ticks.
    struct Sample: Sendable {
        /// All cores' time since boot, and the part of it no one used.
        var total: UInt64
        var idle: UInt64
        var instances: [Int32: UInt64]
        var postgres: [Int32: UInt64]
        var clients: UInt64
    }

    /// The times of now: the whole machine's, each of `instances`, each process named
    /// `postgres`, and this process's.
    static func sample(instances: [Int32]) -> Sample? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let (total, idle) = machineTimes(stat) else { return nil }
        var postgres: [Int32: UInt64] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let (command, time) = processTime(pid), command == "postgres" else { continue }
            postgres[pid] = time
        }
        var times: [Int32: UInt64] = [:]
        for pid in instances { times[pid] = processTime(pid)?.time }
        return Sample(total: total, idle: idle, instances: times, postgres: postgres, clients: processTime(getpid())?.time ?? 0)
    }

    /// All cores' time and idle time from the `cpu` line of `/proc/stat` (user, nice, system,
    /// idle, iowait, irq, softirq, steal; guest time is inside user time already).
    static func machineTimes(_ stat: String) -> (total: UInt64, idle: UInt64)? {
        guard let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let fields = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard fields.count >= 5 else { return nil }
        return (fields.prefix(8).reduce(0, +), fields[3] + fields[4])
    }

    /// The command name and user plus system time of process `pid`; nil when it is gone.
    static func processTime(_ pid: Int32) -> (command: String, time: UInt64)? {
        (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).flatMap(processTime(stat:))
    }

    /// The same from the text of `/proc/PID/stat`: the command stands in parentheses and may
    /// hold spaces and parentheses itself, so the fields are counted from the last `)`; user
    /// and system time are the 14th and 15th fields.
    static func processTime(stat: String) -> (command: String, time: UInt64)? {
        guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        let command = String(stat[stat.index(after: open)..<close])
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return (command, user + system)
    }

    /// `54 / 37 / 10 / 9 %`: instances, PostgreSQL, clients, idle.
    package var summary: String {
        [instances, postgres, clients, idle].map { String(format: "%.0f", $0 * 100) }.joined(separator: " / ") + " %"
    }
}

extension CoreUse {
    /// The shares from `a` to `b`. A process that started in between counts whole; one that
    /// ended in between is not counted.
    init?(from a: Sample, to b: Sample) {
        guard b.total > a.total else { return nil }
        let total = Double(b.total - a.total)
        func spent(_ before: [Int32: UInt64], _ after: [Int32: UInt64]) -> Double {
            Double(after.reduce(UInt64(0)) { sum, entry in sum + entry.value - min(entry.value, before[entry.key] ?? 0) })
        }
        instances = spent(a.instances, b.instances) / total
        postgres = spent(a.postgres, b.postgres) / total
        clients = Double(b.clients - min(b.clients, a.clients)) / total
        idle = Double(b.idle - min(b.idle, a.idle)) / total
    }
}
