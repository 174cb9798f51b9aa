import CatalogStoreCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells the watch of a SQLite file (``ChangeNotifier``) when another connection may have
/// committed, so that an observed store with nothing changing costs no wake-ups: on Linux, inotify
/// on the database's folder, for writes to the database, its write-ahead log or its journal (a
/// commit writes one of them), and their creation, removal or replacement.
///
/// A thread of its own blocks in `poll(2)` on the inotify descriptor, and only while a ``next()``
/// waits: events that come while the watch is looking stay queued in the kernel and make the next
/// ``next()`` return at once, so a busy writer's thousand commits a second wake the thread once per
/// look, not once per commit. ``next()`` returns once an event has come, or once
/// ``safetyInterval`` has passed without one (a look now and then, should an event be lost: a full
/// inotify queue is reported as an event too). Where inotify is missing or refuses the watch,
/// ``init(path:)`` answers nil and the notifier falls back to a poll that backs off while nothing
/// changes; a watch whose `poll(2)` fails stops, and its ``next()`` returns at once from then on
/// (the notifier then looks every interval).
final class DatabaseFileEvents: @unchecked Sendable {
    /// The longest the watch goes without a look at the database.
    static let safetyInterval: Duration = .seconds(10)

    /// Guards the state below; the thread waits on it until a ``next()`` waits.
    private let condition = NSCondition()
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
    /// said the files were written), or the safety interval passed, or the task is cancelled, or
    /// the watch stopped (false).
    @discardableResult
    func next() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                condition.lock()
                if closed || Task.isCancelled {
                    condition.unlock()
                    continuation.resume(returning: false)
                    return
                }
                waiter = continuation
                condition.signal()
                condition.unlock()
            }
        } onCancel: {
            resolve(event: false)
        }
    }

    /// Stops the thread (it closes the descriptors); a waiting ``next()`` returns.
    func stop() {
        condition.lock()
        let first = !closed
        closed = true
        condition.signal()
        #if os(Linux)
        if first && !threadEnded {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
        #endif
        condition.unlock()
        resolve(event: false)
    }
    /// The thread has closed the descriptors (set under the lock, so that `stop` never writes to
    /// a closed one).
    private var threadEnded = false

    /// Resumes the waiting ``next()``, if any, with `event`.
    private func resolve(event: Bool) {
        condition.lock()
        let waiting = waiter
        waiter = nil
        condition.unlock()
        waiting?.resume(returning: event)
    }

    #if os(Linux)
    private func watch(names: Set<String>) {
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        let timeout = Int32(Self.safetyInterval.components.seconds * 1000)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Only while a look waits for news; what comes meanwhile stays queued.
            condition.lock()
            while waiter == nil && !closed { condition.wait() }
            let stopping = closed
            condition.unlock()
            if stopping { break }
            let ready = poll(&descriptors, 2, timeout)
            if descriptors[1].revents != 0 || condition.withLock({ closed }) { break }
            if ready == 0 {
                resolve(event: false)   // the safety interval: look now and then
            } else if ready < 0 {
                if errno == EINTR { continue }
                condition.withLock { closed = true }   // the watch cannot go on: next() returns at once
                resolve(event: false)
                break
            } else if descriptors[0].revents != 0, readEvents(into: &buffer, names: names) {
                resolve(event: true)
            }
        }
        condition.withLock {
            threadEnded = true
            close(inotify)
            close(wake.read)
            close(wake.write)
        }
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
