import CatalogDiff
import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// Applies a batch (docs/Batches-and-moves.md) to a catalogue in one transaction: every operation in order,
    /// each checked (unknown ids, indices, full shelves, kinds, `baseRevision`); on any failure
    /// nothing is written and the revision stays. Only the sections the batch touches are read
    /// and written.
    ///
    /// - Returns: the new revision and the staged changeset from the old snapshot to the new one.
    /// - Throws: ``/CatalogStoreCore/StoreError/rejected(catalog:_:)`` with the `BatchError` (which operation,
    ///   why); ``/CatalogStoreCore/StoreError/unknownCatalog(_:)``; ``/CatalogStoreCore/StoreError/database(_:)``.
    @discardableResult
    public func apply(_ batch: Batch, to catalog: String) throws(StoreError) -> WriteResult {
        let batch = batch.canonicalized()
        return try combinedWrite { db in CombinedEdit(try Self.write(batch, to: catalog, in: db)) }.result
    }

    /// `apply(_:to:)` for async callers: the task waits for its transaction without holding a
    /// thread (a server's requests queue for the next group commit, however many there are).
    @discardableResult
    public func apply(_ batch: Batch, to catalog: String) async throws(StoreError) -> WriteResult {
        let batch = batch.canonicalized()
        return try await combinedWrite { db in CombinedEdit(try Self.write(batch, to: catalog, in: db)) }.result
    }

    /// After a committed write, before its observers wake (``keepAdvanced(by:snapshots:updates:)``).
    func didWrite(_ result: WriteResult) {
        StoreRules.keepAdvanced(by: result, snapshots: snapshots, updates: updateCache)
    }

    /// What `apply(_:to:)` would do, computed in a read transaction that writes nothing: the
    /// same checks and errors, the revision it would make and its changeset. Works on a store
    /// opened for reading, so a command line can refuse a bad batch without touching the file.
    public func preview(_ batch: Batch, to catalog: String) throws(StoreError) -> WriteResult {
        let batch = batch.canonicalized()
        return try read { db in
            let editor = try Self.edit(catalog, with: batch, in: db)
            return WriteResult(catalog: catalog, previousRevision: editor.revision, revision: editor.revision + (editor.isEmpty ? 0 : 1),
                               changeset: try StoreRules.changeset(of: editor, catalog: catalog))
        }
    }

    /// Moves a book (docs/Batches-and-moves.md): within its shelf, or to `index` of another shelf with `policy`
    /// deciding what a full shelf does. The same as a batch of one `moveItem`.
    @discardableResult
    public func move(item: String, toSection section: String, index: Int? = nil, policy: MovePolicy = .reject,
                     in catalog: String, baseRevision: Int? = nil) throws(StoreError) -> WriteResult {
        try apply(Batch(baseRevision: baseRevision,
                        operations: [.moveItem(id: item, toSection: section, index: index, policy: policy)]), to: catalog)
    }

    /// ``move(item:toSection:index:policy:in:baseRevision:)`` for async callers (see the async
    /// `apply(_:to:)`).
    @discardableResult
    public func move(item: String, toSection section: String, index: Int? = nil, policy: MovePolicy = .reject,
                     in catalog: String, baseRevision: Int? = nil) async throws(StoreError) -> WriteResult {
        try await apply(Batch(baseRevision: baseRevision,
                              operations: [.moveItem(id: item, toSection: section, index: index, policy: policy)]), to: catalog)
    }

    /// The batch written in the caller's transaction: a single move to a shelf with room takes
    /// the quick path, anything else the editor.
    /// A write to a catalogue that follows a server is queued in the outbox in the same
    /// transaction (docs/Following-a-server.md#the-outbox).
    static func write(_ batch: Batch, to catalog: String, in db: Database) throws -> WriteResult {
        let result = try quickMove(batch, catalog: catalog, in: db) ?? quickMoves(batch, catalog: catalog, in: db)
            ?? commit(try edit(catalog, with: batch, in: db), catalog: catalog, in: db)
        try queueIfFollowed(batch, result: result, in: db)
        return result
    }

    /// The batch applied by an editor reading the catalogue in `db`; a broken rule becomes
    /// ``/CatalogStoreCore/StoreError/rejected(catalog:_:)``.
    static func edit(_ catalog: String, with batch: Batch, in db: Database) throws -> CatalogEditor<DatabaseCatalogSource> {
        var editor = CatalogEditor(source: try DatabaseCatalogSource(db: db, name: catalog))
        do {
            try editor.apply(batch)
        } catch let error as BatchError {
            throw StoreError.rejected(catalog: catalog, error)
        }
        return editor
    }

    /// Writes the edit's rows, raises the revision, checks positions, journals how to undo it and
    /// computes its changeset — all in the caller's transaction.
    static func commit(_ editor: CatalogEditor<DatabaseCatalogSource>, catalog: String, in db: Database) throws -> WriteResult {
        let source = editor.source
        if editor.isEmpty { return .unchanged(catalog: catalog, revision: source.revision) }
        var writer = EditWriter(db: db, editor: editor)
        try writer.write()
        let revision = try Int.fetchOne(db.cachedStatement(sql: "UPDATE catalog SET revision = revision + 1 WHERE pk = ? RETURNING revision"),
                                        arguments: [source.catalogPK])!
        // Which sections changed: compared once, used by the position check and the journal.
        let changed = editor.changedSections
        try writer.verifyPositions(of: changed)
        try journal(RevisionPatch(undoing: editor, changed: changed), catalogPK: source.catalogPK, revision: revision, in: db)
        return WriteResult(catalog: catalog, previousRevision: source.revision, revision: revision,
                           changeset: try StoreRules.changeset(of: editor, catalog: catalog))
    }
}
