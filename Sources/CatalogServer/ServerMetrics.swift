import CatalogStore
import Foundation
import Hummingbird
import Metrics
import NIOCore
import Prometheus

/// One server's metrics, in Prometheus' text format at `GET /metrics`: requests by route, method
/// and status with their latency, writes by kind and outcome with their duration, open event
/// streams, and the database's connection figures (``DatabaseStatistics``).
///
/// Every server has a registry of its own (metrics made with an explicit factory, never the
/// process-wide `MetricsSystem`), so that two servers in one process — tests, benchmarks — never
/// count each other's requests. Routes are labelled by their pattern (`/catalogs/{name}`), never
/// by the path a client sent, so a client cannot make the label set grow.
final class ServerMetrics: @unchecked Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    /// Guards the three tables of metrics made so far and ``notificationsCounted``.
    private let lock = NSLock()
    private var requests: [RequestKey: (Metrics.Counter, Metrics.Timer)] = [:]
    private var writes: [WriteKey: Metrics.Counter] = [:]
    private var writeDurations: [String: Metrics.Timer] = [:]
    private let subscribers: Prometheus.Gauge
    private let database: @Sendable () -> DatabaseStatistics
    private let eventStreams: @Sendable () -> Int
    /// Only for a database with a pool, and one that hears notifications: a 0 would be a figure,
    /// not "none".
    private let pool: (inUse: Prometheus.Gauge, waiting: Prometheus.Gauge)?
    private let notifications: Prometheus.Counter?
    /// The notifications already added to ``notifications`` (the store counts from its opening).
    private var notificationsCounted = 0

    /// Bucket bounds for every duration: a move takes well under a millisecond on SQLite, a
    /// large import seconds.
    static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    init(database: @escaping @Sendable () -> DatabaseStatistics, eventStreams: @escaping @Sendable () -> Int) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.factory = factory
        self.database = database
        self.eventStreams = eventStreams
        subscribers = registry.makeGauge(descriptor: .init(namespace: "catalog", metricName: "event_stream", unitName: "subscribers",
                                                             helpText: "Event streams (GET /catalogs/{name}/events) open now"))
        let figures = database()
        pool = figures.connectionsInUse == nil ? nil
            : (registry.makeGauge(descriptor: .init(namespace: "catalog", metricName: "database_connections", unitName: "in_use",
                                                     helpText: "Pooled database connections running an operation now")),
               registry.makeGauge(descriptor: .init(namespace: "catalog", metricName: "database_connections", unitName: "waiting",
                                                     helpText: "Operations waiting for a pooled database connection now")))
        notifications = figures.notificationsReceived == nil ? nil
            : registry.makeCounter(descriptor: .init(namespace: "catalog", metricName: "database_notifications_received", unitName: "total",
                                                       helpText: "Notifications of other instances' writes heard"))
    }

    private struct RequestKey: Hashable {
        /// As Hummingbird has it (`/catalogs/:name`): turned into a label once, when first seen.
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private struct WriteKey: Hashable {
        let kind: String
        let outcome: String
    }

    /// Counts a request to the route Hummingbird matched (`endpointPath`, nil for none),
    /// answered with `status` after `nanoseconds`.
    func request(endpointPath: String?, method: HTTPRequest.Method, status: Int, nanoseconds: UInt64) {
        let key = RequestKey(route: endpointPath ?? "", method: method, status: status)
        let (counter, timer) = lock.withLock {
            if let made = requests[key] { return made }
            let dimensions = [("route", Self.route(endpointPath)), ("method", method.rawValue),
                              ("status", String(status))]
            let made = (Metrics.Counter(label: "catalog_http_requests_total", dimensions: dimensions, factory: factory),
                        Metrics.Timer(label: "catalog_http_request_duration_seconds", dimensions: dimensions,
                                      preferredDisplayUnit: .seconds, factory: factory))
            requests[key] = made
            return made
        }
        counter.increment()
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }

    /// A matched route's pattern with `{name}` for a parameter (as ``CatalogServer/routes``);
    /// `unmatched` for a path no route answers.
    static func route(_ endpointPath: String?) -> String {
        guard let path = endpointPath, path.hasPrefix("/") else { return "unmatched" }
        return CatalogServer.pattern(path)
    }

    /// What a write's outcome is called: `committed`, `refused` (the client's request was wrong
    /// or conflicted: a 4xx answer) or `failed` (the server or the database: a 5xx answer).
    static func outcome(of error: (any Error)?) -> String {
        guard let error else { return "committed" }
        return Problem(error).status.code < 500 ? "refused" : "failed"
    }

    /// Runs the write `body` of `kind` (`move`, `batch`, `import`, `delete`), counting it by
    /// outcome and timing it.
    func write<Result>(_ kind: String, _ body: () async throws -> Result) async throws -> Result {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let result = try await body()
            wrote(kind, outcome: Self.outcome(of: nil), nanoseconds: DispatchTime.now().uptimeNanoseconds - start)
            return result
        } catch {
            wrote(kind, outcome: Self.outcome(of: error), nanoseconds: DispatchTime.now().uptimeNanoseconds - start)
            throw error
        }
    }

    private func wrote(_ kind: String, outcome: String, nanoseconds: UInt64) {
        let (counter, timer) = lock.withLock {
            let key = WriteKey(kind: kind, outcome: outcome)
            let counter = writes[key] ?? Metrics.Counter(label: "catalog_writes_total", dimensions: [("kind", kind), ("outcome", outcome)],
                                                         factory: factory)
            let timer = writeDurations[kind] ?? Metrics.Timer(label: "catalog_write_duration_seconds", dimensions: [("kind", kind)],
                                                              preferredDisplayUnit: .seconds, factory: factory)
            (writes[key], writeDurations[kind]) = (counter, timer)
            return (counter, timer)
        }
        counter.increment()
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }

    /// The text of `GET /metrics`: the figures read now (streams, connections) and everything
    /// counted so far.
    func exposition() -> ByteBuffer {
        subscribers.set(to: Double(eventStreams()))
        let statistics = database()
        if let pool {
            pool.inUse.set(to: Double(statistics.connectionsInUse ?? 0))
            pool.waiting.set(to: Double(statistics.connectionsWaiting ?? 0))
        }
        if let notifications, let heard = statistics.notificationsReceived {
            lock.withLock {
                if heard > notificationsCounted { notifications.increment(by: Int64(heard - notificationsCounted)) }
                notificationsCounted = max(notificationsCounted, heard)
            }
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return ByteBuffer(bytes: bytes)
    }
}

/// Counts and times every request in ``ServerMetrics``, by its route's pattern; the time is
/// until the response's head is ready (an event stream counts when it opens).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let status: Int
        do {
            let response = try await next(request, context)
            status = Int(response.status.code)
            record(request, context, status: status, start: start)
            return response
        } catch {
            record(request, context, status: Int(Problem(error).status.code), start: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, start: UInt64) {
        metrics.request(endpointPath: context.endpointPath, method: request.method, status: status,
                        nanoseconds: DispatchTime.now().uptimeNanoseconds - start)
    }
}
