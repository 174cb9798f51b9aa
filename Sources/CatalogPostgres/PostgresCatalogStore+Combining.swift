import CatalogDiff
import CatalogModel
import CatalogStore
import Foundation
import PostgresNIO

extension PostgresCatalogStore {
    /// Whether a batch only inserts, deletes, updates or moves items: such batches to one
    /// catalogue are combined (``ItemWriteQueue``) and written in one statement.
    static func editsItemsOnly(_ batch: Batch) -> Bool {
        batch.operations.allSatisfy { operation in
            switch operation {
            case .insertItem, .deleteItem, .updateItem, .moveItem: true
            case .insertSection, .deleteSection, .moveSection, .updateSection: false
            }
        }
    }

    /// Writes `batches` (each of items only) to catalogue `name` one after another, each its own
    /// revision, and answers each: its result, or the error that refused it alone.
    ///
    /// The catalogue's revision is read, then the rows the batches name; the editor applies each
    /// batch in memory to the state the ones before it left (a batch it refuses changes
    /// nothing); and one statement writes every row that changed, every journal entry and the new
    /// revision — only if the revision is still the one read, the catalogue's row being the
    /// lock. So two round trips, however many batches, once the catalogue's row key is known
    /// (``CatalogKeys``; the read of the rows answers the revision). When another instance wrote
    /// in between, nothing is written and the group runs again holding the lock from the start
    /// (five round trips), which cannot fail that way; and for a while the catalogue's groups
    /// start so (``Contention``).
    func writeItems(_ batches: [Batch], to name: String) async -> [Result<WriteResult, StoreError>] {
        let (logger, keys) = (self.logger, catalogKeys)
        do {
            if !contention.isContended(name) {
                let optimistic = try await withConnection { connection in
                    try await Self.writeItems(batches, to: name, locked: false, keys: keys, on: connection, logger: logger)
                }
                if let results = optimistic { return results }
                contention.conflicted(name)
            }
            let locked = try await transaction { connection in
                try await Self.writeItems(batches, to: name, locked: true, keys: keys, on: connection, logger: logger)
            }
            guard let results = locked else { throw StoreError.database("the catalogue's revision changed while its row was locked") }
            return results
        } catch {
            let error = (error as? StoreError) ?? storeError(error)
            return batches.map { _ in .failure(error) }
        }
    }

    /// One attempt of ``writeItems(_:to:)``; nil when the revision changed after it was read, or
    /// the catalogue's row key in `keys` is no longer its own (never when `locked`: the caller's
    /// transaction holds the row). Every read checks the revision too, so the editor never sees
    /// parts of two states, and a batch refused was refused by the state it was read at.
    static func writeItems(_ batches: [Batch], to name: String, locked: Bool, keys: CatalogKeys, on connection: PostgresConnection,
                           logger: Logger) async throws -> [Result<WriteResult, StoreError>]? {
        var source: PostgresCatalogSource
        if !locked, let known = keys[name] {
            source = PostgresCatalogSource(catalogPK: known, revision: nil)
        } else {
            var row: (pk: Int64, revision: Int)?
            if locked {
                row = try await catalogRow(named: name, on: connection, logger: logger, locking: true)
            } else {
                for try await (pk, revision) in try await connection.execute(PreparedStatements.CatalogRow(catalog: name), logger: logger) {
                    row = (pk, Int(revision))
                }
            }
            keys[name] = row?.pk
            guard let (catalogPK, revision) = row else {
                return batches.map { _ in .failure(.unknownCatalog(name)) }
            }
            source = PostgresCatalogSource(catalogPK: catalogPK, revision: revision)
        }
        var wanted = (sections: [String](), items: [String]())
        for batch in batches {
            let named = PostgresCatalogSource.prefetch(for: batch)
            wanted.sections += named.sections
            wanted.items += named.items
        }
        do {
            try await source.load(sections: wanted.sections, items: wanted.items, on: connection, logger: logger)
        } catch is PostgresCatalogSource.StaleRead {
            return nil
        }
        if source.storedRevision == nil {
            // Nothing was loaded (batches with no operation): the revision is read alone.
            var revision: Int?
            for try await (pk, found) in try await connection.execute(PreparedStatements.CatalogRow(catalog: name), logger: logger)
            where pk == source.catalogPK {
                revision = Int(found)
            }
            guard let revision else { return nil }
            source = PostgresCatalogSource(catalogPK: source.catalogPK, revision: revision)
        }
        let (catalogPK, base) = (source.catalogPK, source.revision)

        var results: [Result<WriteResult, StoreError>] = []
        var patches: [(revision: Int, text: String)] = []
        var changed = Set<String>()
        for batch in batches {
            let editor: CatalogEditor<PostgresCatalogSource>
            do {
                editor = try await edit(name, with: batch, in: &source, on: connection, logger: logger)
            } catch let error as StoreError {
                results.append(.failure(error))
                continue
            } catch is PostgresCatalogSource.StaleRead {
                return nil
            }
            let revision = source.revision
            if editor.isEmpty {
                results.append(.success(.unchanged(catalog: name, revision: revision)))
                continue
            }
            guard editor.inserted.isEmpty, editor.deleted.isEmpty, editor.order == editor.orderBefore else {
                throw StoreError.database("an edit of items changed sections")
            }
            let sections = editor.changedSections
            let changeset = try CatalogStore.changeset(of: editor, catalog: name)
            patches.append((revision + 1, try RevisionPatch(undoing: editor, changed: sections).encoded()))
            changed.formUnion(sections)
            source.absorb(editor)
            results.append(.success(WriteResult(catalog: name, previousRevision: revision, revision: revision + 1, changeset: changeset)))
        }
        guard !patches.isEmpty else { return results }

        // What differs from the stored rows after every edit: items no section holds any more
        // (items move only between loaded sections), and the rows of the changed sections whose
        // section, key or content changed.
        var gone = Set<String>()
        for (_, loaded) in source.sections { for item in loaded.stored.items { gone.insert(item.id) } }
        for (_, loaded) in source.sections { for item in loaded.section.items { gone.remove(item.id) } }
        let rows = itemRows(changed.sorted().map { ($0, source.sections[$0]!.section, true) }, source: source)
        var journal = JSONRecords()
        for (revision, text) in patches {
            journal.append { row in
                row.integer("revision", revision)
                row.text("patch", text)
            }
        }
        let final = source.revision
        let prunes = (base + 1...final).contains { $0 % CatalogStore.journalPruningInterval == 0 }
        let statement = PreparedStatements.GroupWrite(catalogPK: catalogPK, base: base, final: final, gone: gone.sorted(),
                                                      rows: rows.document, rowCount: rows.count, journal: journal.document,
                                                      prune: prunes, channel: channel, payload: payload(name: name, revision: final))
        for try await updated in try await connection.execute(statement, logger: logger) where updated != 1 { return nil }
        return results
    }

    /// The editor after `batch`, reading through `source` (loading what it misses into it).
    static func edit(_ name: String, with batch: Batch, in source: inout PostgresCatalogSource,
                     on connection: PostgresConnection, logger: Logger) async throws -> CatalogEditor<PostgresCatalogSource> {
        while true {
            var editor = CatalogEditor(source: source)
            do {
                try editor.apply(batch)
                return editor
            } catch let miss as PostgresCatalogSource.Miss {
                try await source.load(miss, on: connection, logger: logger)
            } catch let error as BatchError {
                throw StoreError.rejected(catalog: name, error)
            }
        }
    }
}

/// The row key of each catalogue this instance wrote, by name: an optimistic group reads its
/// rows by the key directly, one round trip fewer. A key goes stale only when its catalogue is
/// deleted (a catalogue made again under the name has a new key); the read then finds no
/// catalogue row, and the group runs again locked, reading the key afresh.
final class CatalogKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [String: Int64] = [:]

    subscript(name: String) -> Int64? {
        get { lock.withLock { keys[name] } }
        set {
            lock.withLock {
                if newValue != nil, keys[name] == nil, keys.count >= 4_096 { keys.removeAll(keepingCapacity: true) }
                keys[name] = newValue
            }
        }
    }
}

/// Batches of items only, waiting to be written to their catalogue: while one group of a
/// catalogue is being written, the batches that arrive for it wait, and the next group takes
/// them all (up to ``maximumGroup``) in one write. Each batch still gets a revision of its own
/// and fails alone. Batches to different catalogues never wait for each other.
final class ItemWriteQueue: @unchecked Sendable {
    /// The most batches one write carries, so that a steady stream still commits regularly.
    static let maximumGroup = 64

    private struct Waiting {
        let batch: Batch
        let continuation: CheckedContinuation<Result<WriteResult, StoreError>, Never>
    }

    private let lock = NSLock()
    private var waiting: [String: [Waiting]] = [:]
    private var writing: Set<String> = []

    /// Queues `batch` for catalogue `name`; answers once its group is written (or refused).
    func write(_ batch: Batch, to name: String,
               with store: PostgresCatalogStore) async -> Result<WriteResult, StoreError> {
        await withCheckedContinuation { continuation in
            let lead: Bool = lock.withLock {
                waiting[name, default: []].append(Waiting(batch: batch, continuation: continuation))
                return writing.insert(name).inserted
            }
            if lead { Task { await self.drain(name, with: store) } }
        }
    }

    /// Writes groups of `name`'s waiting batches until none is left.
    private func drain(_ name: String, with store: PostgresCatalogStore) async {
        while true {
            let group: [Waiting] = lock.withLock {
                let all = waiting[name] ?? []
                let group = Array(all.prefix(Self.maximumGroup))
                let rest = Array(all.dropFirst(group.count))
                waiting[name] = rest.isEmpty ? nil : rest
                if group.isEmpty { writing.remove(name) }
                return group
            }
            if group.isEmpty { return }
            let results = await store.writeItems(group.map(\.batch), to: name)
            for written in results.compactMap({ try? $0.get() }) { store.didWrite(written) }
            for (waiter, result) in zip(group, results) { waiter.continuation.resume(returning: result) }
        }
    }
}
