import GRDB

extension CatalogStore {
    /// Runs `body` in a read transaction, turning GRDB's errors into ``StoreError``.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(body)
        } catch {
            throw Self.storeError(from: error)
        }
    }

    /// Runs `body` in one write transaction: it commits whole, or a throw rolls everything back.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try committed { try writer.write(body) }
    }

    /// Like ``write(_:)``, but the transaction may be shared with edits other threads make at the
    /// same moment; an edit that fails leaves the others (see ``WriteCombiner``). `body` may run
    /// more than once, so it must act only on the database.
    func combinedWrite<T>(_ body: @escaping (Database) throws -> T) throws(StoreError) -> T {
        try committed { try combiner.write(writer, body) }
    }

    /// Like ``combinedWrite(_:)``, but the caller's task waits without holding a thread, so that
    /// however many requests a server has waiting, all of them can join the next group.
    func combinedWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let outcome: Result<T, any Error> = await withCheckedContinuation { continuation in
            combiner.submit(writer, body) { result in continuation.resume(returning: result) }
        }
        return try committed { try outcome.get() }
    }

    /// A write's outcome as a ``StoreError``; a committed write counts towards the next
    /// background checkpoint and wakes the observers.
    private func committed<T>(_ write: () throws -> T) throws(StoreError) -> T {
        let result: T
        do {
            result = try write()
        } catch {
            throw Self.storeError(from: error)
        }
        checkpointer?.didWrite()
        notifier.didCommit()
        return result
    }

    static func storeError(from error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        return .database(describe(error))
    }
}
