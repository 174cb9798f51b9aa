#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension DiffWorkspace {
    /// The workspaces that diffs without one of their own borrow.
    ///
    /// glibc hands a diff's scratch memory back to the system when it is freed, and the next diff
    /// maps it again page by page, which costs more than the diff itself at 100k ids. So a
    /// diff called without a workspace borrows an idle one from this pool (or makes one), and
    /// gives it back afterwards. At most ``SharedWorkspaces/maximumIdle`` workspaces and
    /// ``SharedWorkspaces/maximumIdleBytes`` of memory wait in the pool; a larger workspace (a
    /// diff of about a million ids) is freed when its diff ends, as before.
    static let shared = SharedWorkspaces()

    /// The bytes of scratch memory the shared workspaces hold between diffs.
    public static var sharedRetainedBytes: Int { shared.retainedBytes }

    /// Frees the scratch memory that diffs without a workspace keep for the next one (for example
    /// when the system warns that memory is low). The next such diff allocates it again.
    public static func releaseShared() { shared.removeAll() }
}

/// A pool of idle ``DiffWorkspace``s, shared by the threads that diff. Each diff takes one for
/// itself, so diffs running at the same time never share scratch memory.
final class SharedWorkspaces: @unchecked Sendable {  // `idle` and `idleBytes` only under `mutex`
    static let maximumIdle = 4
    static let maximumIdleBytes = 32 << 20

    let maximumIdle: Int
    let maximumIdleBytes: Int
    private let mutex = Mutex()
    private var idle: [DiffWorkspace] = []
    private var idleBytes = 0

    init(maximumIdle: Int = SharedWorkspaces.maximumIdle, maximumIdleBytes: Int = SharedWorkspaces.maximumIdleBytes) {
        self.maximumIdle = maximumIdle
        self.maximumIdleBytes = maximumIdleBytes
    }

    /// Runs `body` with a workspace no other diff uses meanwhile, and keeps it for the next one
    /// if it is small enough.
    func borrow<R, E: Error>(_ body: (DiffWorkspace) throws(E) -> R) throws(E) -> R {
        let workspace = take() ?? DiffWorkspace()
        defer { giveBack(workspace) }
        return try body(workspace)
    }

    /// The bytes the idle workspaces hold.
    var retainedBytes: Int { mutex.locked { idleBytes } }

    /// How many workspaces wait in the pool.
    var idleCount: Int { mutex.locked { idle.count } }

    func removeAll() {
        let freed = mutex.locked { () -> [DiffWorkspace] in
            defer { (idle, idleBytes) = ([], 0) }
            return idle
        }
        _ = freed  // freed here, outside the lock
    }

    private func take() -> DiffWorkspace? {
        mutex.locked {
            guard let workspace = idle.popLast() else { return nil }
            idleBytes -= workspace.retainedBytes
            return workspace
        }
    }

    private func giveBack(_ workspace: DiffWorkspace) {
        let bytes = workspace.retainedBytes
        mutex.locked {
            guard idle.count < maximumIdle, idleBytes + bytes <= maximumIdleBytes else { return }
            idle.append(workspace)
            idleBytes += bytes
        }
    }
}

/// A plain mutual-exclusion lock (the standard library's `Mutex` needs macOS 15 and iOS 18).
private final class Mutex: @unchecked Sendable {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    private let handle: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        handle = .allocate(capacity: 1)
        handle.initialize(to: pthread_mutex_t())
        pthread_mutex_init(handle, nil)
    }

    deinit {
        pthread_mutex_destroy(handle)
        handle.deallocate()
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(handle)
        defer { pthread_mutex_unlock(handle) }
        return try body()
    }
    #else
    #error("CatalogDiff needs pthreads for its shared workspaces")
    #endif
}
