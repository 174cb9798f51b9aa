import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells the watch of a SQLite file (``ChangeNotifier``) when another connection may have
/// committed, so that an observed store with nothing changing costs no wake-ups: on Linux, inotify
/// on the database's folder, for writes to the database, its write-ahead log or its journal (a
/// commit writes one of them), and their creation, removal or replacement.
///
/// A thread of its own blocks in `poll(2)` on the inotify descriptor; ``next()`` returns once an
/// event has come since the last call, or once ``safetyInterval`` has passed without one (a look
/// now and then, should an event be lost: a full inotify queue is reported as an event too).
/// Where inotify is missing or refuses the watch, ``init(path:)`` answers nil and the notifier
/// falls back to a poll that backs off while nothing changes.
final class DatabaseFileEvents: @unchecked Sendable {
    /// The longest the watch goes without a look at the database.
    static let safetyInterval: Duration = .seconds(10)

    private let lock = NSLock()
    /// An event (or the safety interval) came and no ``next()`` has taken it yet.
    private var pending = false
    /// Of what is pending: whether a file event came (not only the safety interval).
    private var pendingEvent = false
    private var waiter: CheckedContinuation<Bool, Never>?
    private var closed = false
    #if os(Linux)
    private let inotify: Int32
    /// Written to wake the thread when the watch closes.
    private let wake: (read: Int32, write: Int32)
    #endif

    /// Watches the files of the database at `path`; nil where that cannot be done.
    init?(path: String) {
        #if os(Linux)
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE)
        var pipeEnds: [Int32] = [0, 0]
        guard inotify_add_watch(descriptor, folder, mask) >= 0, pipe(&pipeEnds) == 0 else {
            close(descriptor)
            return nil
        }
        inotify = descriptor
        wake = (pipeEnds[0], pipeEnds[1])
        let names: Set<String> = [name, name + "-wal", name + "-journal"]
        let thread = Thread { [self] in self.watch(names: names) }
        thread.name = "CatalogKit.DatabaseFileEvents"
        thread.start()
        #else
        return nil
        #endif
    }

    /// Returns once a change may have been committed since the last call (true: the file system
    /// said the files were written), or the safety interval passed, or the task is cancelled
    /// (false).
    @discardableResult
    func next() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = lock.withLock { () -> Bool? in
                    if pending || closed || Task.isCancelled {
                        defer { (pending, pendingEvent) = (false, false) }
                        return pendingEvent
                    }
                    waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            signal(event: false)
        }
    }

    /// Stops the thread (it closes the descriptors); a waiting ``next()`` returns.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        #if os(Linux)
        if first {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
        #endif
        signal(event: false)
    }

    private func signal(event: Bool) {
        let waiting: CheckedContinuation<Bool, Never>? = lock.withLock {
            defer { waiter = nil }
            if waiter == nil { (pending, pendingEvent) = (true, pendingEvent || event) }
            return waiter
        }
        waiting?.resume(returning: event)
    }

    #if os(Linux)
    private func watch(names: Set<String>) {
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        let timeout = Int32(Self.safetyInterval.components.seconds * 1000)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let ready = poll(&descriptors, 2, timeout)
            if descriptors[1].revents != 0 || lock.withLock({ closed }) { break }
            if ready == 0 {
                signal(event: false)   // the safety interval: look now and then
                continue
            }
            guard ready > 0, descriptors[0].revents != 0 else { continue }   // EINTR
            if readEvents(into: &buffer, names: names) { signal(event: true) }
        }
        close(inotify)
        close(wake.read)
        close(wake.write)
    }

    /// Reads every queued event; whether one was about the database's files (or the queue overflowed).
    private func readEvents(into buffer: inout [UInt8], names: Set<String>) -> Bool {
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let mask = bytes.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        relevant = true
                    } else if length > 0 {
                        let start = offset + header
                        let nameBytes = bytes[start..<min(start + length, count)].prefix { $0 != 0 }
                        if names.contains(String(decoding: nameBytes, as: UTF8.self)) { relevant = true }
                    }
                    offset += header + length
                }
            }
        }
    }
    #endif
}
