import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// Runs `body` in a read transaction, turning GRDB's errors into ``/CatalogStoreCore/StoreError``.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(body)
        } catch {
            throw Self.storeError(from: error)
        }
    }

    /// Runs `body` in one write transaction: it commits whole, or a throw rolls everything back.
    func write(_ body: (Database) throws -> [WriteResult]) throws(StoreError) -> [WriteResult] {
        committed(try outcome { try writer.write(body) })
    }

    /// Runs `body` in one write transaction that makes no revision of a catalogue (a setting, a
    /// delete): it commits whole or not at all, and counts towards the next checkpoint. The
    /// caller tells observers what changed.
    func writeWithoutRevision<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        let result = try outcome { try writer.write(body) }
        checkpointer?.didWrite()
        return result
    }

    /// Like ``write(_:)``, but the transaction may be shared with edits other threads make at the
    /// same moment; an edit that fails leaves the others (see ``WriteCombiner``). `body` may run
    /// more than once (again alone, if its group failed), so it must act only on the database and
    /// hand out what it made through its return value: the run committed is the one returned.
    func combinedWrite(_ body: @escaping (Database) throws -> CombinedEdit) throws(StoreError) -> CombinedEdit {
        let edit = try outcome { try combiner.write(writer, body) }
        _ = committed([edit.result])
        return edit
    }

    /// Like ``combinedWrite(_:)``, but the caller's task waits without holding a thread, so that
    /// however many requests a server has waiting, all of them can join the next group.
    func combinedWrite(_ body: @escaping @Sendable (Database) throws -> CombinedEdit) async throws(StoreError) -> CombinedEdit {
        let outcome: Result<CombinedEdit, any Error> = await withCheckedContinuation { continuation in
            combiner.submit(writer, body) { result in continuation.resume(returning: result) }
        }
        let edit = try self.outcome { try outcome.get() }
        _ = committed([edit.result])
        return edit
    }

    /// A write's outcome, its errors as ``/CatalogStoreCore/StoreError``.
    private func outcome<T>(_ write: () throws -> T) throws(StoreError) -> T {
        do {
            return try write()
        } catch {
            throw Self.storeError(from: error)
        }
    }

    /// After a commit: the write counts towards the next background checkpoint, what observers
    /// will need is prepared (``didWrite(_:)``), and then they are woken.
    private func committed(_ results: [WriteResult]) -> [WriteResult] {
        checkpointer?.didWrite()
        for result in results { didWrite(result) }
        notifier.didCommit(results.map { ($0.catalog, $0.revision) })
        return results
    }

    static func storeError(from error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        return .database(describe(error))
    }
}

/// What one edit of a combined write gives back out of its transaction: its result and, for a
/// client's numbered write, the answer recorded with it.
struct CombinedEdit: Sendable {
    var result: WriteResult
    var answer: RecordedAnswer?

    init(_ result: WriteResult, answer: RecordedAnswer? = nil) {
        (self.result, self.answer) = (result, answer)
    }
}
