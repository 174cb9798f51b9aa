import CatalogConcurrency
import CatalogDiff
import CatalogModel
import CatalogStoreCore
import Foundation
import PostgresNIO

extension PostgresCatalogStore {
    /// Whether a batch is written with others to its catalogue (``ItemWriteQueue``) in one
    /// statement: it only inserts, deletes, updates or moves items, and names no revision it
    /// must apply to (`If-Match`), which only a write that holds the catalogue's lock from its
    /// first read can check.
    static func isCombined(_ batch: Batch) -> Bool {
        batch.baseRevision == nil && batch.operations.allSatisfy { operation in
            switch operation {
            case .insertItem, .deleteItem, .updateItem, .moveItem: true
            case .insertSection, .deleteSection, .moveSection, .updateSection: false
            }
        }
    }

    /// How many times a group's batches are written without the catalogue's lock before the
    /// ones still refused by another instance's writes are written holding it.
    static let optimisticAttempts = 3

    /// Writes `batches` (each combined, ``isCombined(_:)``) to catalogue `name`, each its own
    /// revision, and answers each: its result, or the error that refused it alone.
    ///
    /// The rows the batches name are read, the editor applies each batch in memory to the
    /// state the ones before it left (a batch it refuses changes nothing), and one statement
    /// writes every row that changed, every journal entry and the new revision: two round trips
    /// however many batches, once the catalogue's row key is known (``CatalogKeys``), and no
    /// lock held between them. The statement checks that what the batches read is still so —
    /// the version of each section read, the absence of each item read as absent — and holds
    /// the catalogue's row only while it claims the revisions. Batches that read nothing in
    /// common make separate parts; a part whose reads another instance's write changed is not
    /// written, and its batches run again. So two instances writing to different shelves of one
    /// catalogue both commit. After ``optimisticAttempts``, what is left runs holding the
    /// catalogue's lock from the start (five round trips), which cannot fail that way.
    func writeItems(_ batches: [Batch], to name: String) async -> [Result<WriteResult, StoreError>] {
        let (logger, keys) = (self.logger, catalogKeys)
        var results = [Result<WriteResult, StoreError>?](repeating: nil, count: batches.count)
        var pending = Array(batches.indices)
        do {
            for _ in 0..<Self.optimisticAttempts where !pending.isEmpty {
                let group = pending.map { batches[$0] }
                let attempt = try await withConnection { connection in
                    try await Self.writeItems(group, to: name, locked: false, keys: keys, on: connection, logger: logger)
                }
                guard let attempt else { break }
                for (index, result) in zip(pending, attempt) { results[index] = result }
                pending = pending.filter { results[$0] == nil }
            }
            if !pending.isEmpty {
                let group = pending.map { batches[$0] }
                let locked = try await transaction { connection in
                    try await Self.writeItems(group, to: name, locked: true, keys: keys, on: connection, logger: logger)
                }
                guard let locked, !locked.contains(where: { $0 == nil }) else {
                    throw StoreError.database("the catalogue changed while its row was locked")
                }
                for (index, result) in zip(pending, locked) { results[index] = result }
            }
        } catch {
            let error = (error as? StoreError) ?? storeError(error)
            return results.map { $0 ?? .failure(error) }
        }
        return results.map { $0! }
    }

    /// Takes the catalogue's lock: a batch read what only a write holding it can check.
    private struct NeedsLock: Error {}

    /// One attempt of ``writeItems(_:to:)``: each batch's answer, or nil for a batch whose part
    /// another instance's write made stale (never when `locked`: the caller's transaction holds
    /// the catalogue's row). Nil for all when the catalogue's row key in `keys` is no longer its
    /// own, or a batch read the section order or found no section at a position (which only the
    /// lock makes sure of).
    static func writeItems(_ batches: [Batch], to name: String, locked: Bool, keys: CatalogKeys, on connection: PostgresConnection,
                           logger: Logger) async throws -> [Result<WriteResult, StoreError>?]? {
        switch try await editGroup(batches, of: name, locked: locked, keys: keys, on: connection, logger: logger) {
        case nil: return nil
        case .answered(let results)?: return results
        case .edited(let group)?: return try await write(group, on: connection, logger: logger)
        }
    }

    /// A group's batches read and edited, before the write.
    struct EditedGroup {
        let name: String
        let locked: Bool
        /// What the edits read, and the state they left.
        var source: PostgresCatalogSource
        /// Each batch's edit, in order.
        var edits: [Edit]
    }

    /// What reading and editing a group came to: the answers, when nothing is to be written
    /// (each batch refused or changing nothing), or the edits to write.
    enum GroupEdit {
        case answered([Result<WriteResult, StoreError>?])
        case edited(EditedGroup)
    }

    /// The first half of an attempt of ``writeItems(_:to:)``: the rows the batches name read and
    /// each batch edited in turn. Nil as for ``writeItems(_:to:locked:keys:on:logger:)``.
    static func editGroup(_ batches: [Batch], of name: String, locked: Bool, keys: CatalogKeys, on connection: PostgresConnection,
                          logger: Logger) async throws -> GroupEdit? {
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
                return .answered(batches.map { _ in .failure(.unknownCatalog(name)) })
            }
            source = PostgresCatalogSource(catalogPK: catalogPK, revision: revision)
        }
        let named = batches.map(PostgresCatalogSource.prefetch)
        var wanted = (sections: [String](), items: [String]())
        for (sections, items, _) in named {
            wanted.sections += sections
            wanted.items += items
        }
        do {
            try await source.load(sections: wanted.sections, items: wanted.items, on: connection, logger: logger)
        } catch is PostgresCatalogSource.CatalogueGone {
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

        // Each batch edited in turn, with what it read and what it changed.
        var edits: [Edit] = []
        do {
            for (batch, named) in zip(batches, named) {
                source.reads = .init()
                let outcome = try await edit(name, with: batch, in: &source, on: connection, logger: logger)
                if source.reads.order && !locked { throw NeedsLock() }
                var edit = Edit(reads: source.reads, named: named.items)
                switch outcome {
                case .failure(let error):
                    edit.outcome = .refused(error)
                case .success(let editor) where editor.isEmpty:
                    edit.outcome = .unchanged
                case .success(let editor):
                    guard editor.inserted.isEmpty, editor.deleted.isEmpty, editor.order == editor.orderBefore else {
                        throw StoreError.database("an edit of items changed sections")
                    }
                    let sections = editor.changedSections
                    edit.outcome = .written(changeset: try StoreRules.changeset(of: editor, catalog: name),
                                            patch: try RevisionPatch(undoing: editor, changed: sections).encoded(), changed: sections)
                    source.absorb(editor)
                }
                edits.append(edit)
            }
        } catch is PostgresCatalogSource.StaleRead {
            return locked ? nil : .answered(batches.map { _ in nil })
        } catch is PostgresCatalogSource.CatalogueGone, is NeedsLock {
            return nil
        }
        // Refusals read in one load are of one state; read in several, they are checked too.
        guard edits.contains(where: \.writes) || (source.loads > 1 && !locked) else {
            let revision = source.revision
            return .answered(edits.map { edit in
                if case .refused(let error) = edit.outcome { return .failure(error) }
                return .success(.unchanged(catalog: name, revision: revision))
            })
        }
        return .edited(EditedGroup(name: name, locked: locked, source: source, edits: edits))
    }

    /// The second half of an attempt of ``writeItems(_:to:)``: `group` written in one statement,
    /// each part only if its reads still hold. Answers as
    /// ``writeItems(_:to:locked:keys:on:logger:)``.
    static func write(_ group: EditedGroup, on connection: PostgresConnection,
                      logger: Logger) async throws -> [Result<WriteResult, StoreError>?]? {
        let (name, locked, edits) = (group.name, group.locked, group.edits)
        let parts = Self.parts(of: edits)
        let statement = try groupWrite(edits, parts: parts, source: group.source, name: name)
        var claimed: (base: Int, stale: Set<Int32>)?
        for try await (base, stale, _) in try await connection.execute(statement, logger: logger) {
            claimed = (Int(base), Set(stale))
        }
        guard let claimed else { return nil }
        if locked && !claimed.stale.isEmpty { return nil }
        var revision = claimed.base
        return edits.indices.map { index -> Result<WriteResult, StoreError>? in
            if claimed.stale.contains(parts[index]) { return nil }
            switch edits[index].outcome {
            case .refused(let error):
                return .failure(error)
            case .unchanged:
                return .success(.unchanged(catalog: name, revision: revision))
            case .written(var changeset, _, _):
                revision += 1
                (changeset.fromRevision, changeset.toRevision) = (revision - 1, revision)
                return .success(WriteResult(catalog: name, previousRevision: revision - 1, revision: revision, changeset: changeset))
            }
        }
    }

    /// One batch of a combined write, as the editor left it.
    struct Edit {
        enum Outcome {
            case refused(StoreError)
            case unchanged
            case written(changeset: Changeset, patch: String, changed: [String])
        }

        var outcome = Outcome.unchanged
        /// What the edit read.
        var reads: PostgresCatalogSource.Reads
        /// The items the batch names, read or not (an item one batch deletes and the next
        /// inserts is read by neither, but ties the two).
        var named: [String]

        var writes: Bool {
            if case .written = outcome { true } else { false }
        }
    }

    /// The part each edit belongs to: edits that read a section or name an item in common are
    /// of one part, directly or through others. Numbered from 0 in order of first edit.
    static func parts(of edits: [Edit]) -> [Int32] {
        var parent = Array(edits.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        var firstReader: [String: Int] = [:]
        for (index, edit) in edits.enumerated() {
            let keys = edit.reads.sections.map { "s" + $0 } + edit.reads.absentItems.map { "i" + $0 } + edit.named.map { "i" + $0 }
            for key in keys {
                if let other = firstReader[key] {
                    let (a, b) = (root(other), root(index))
                    if a != b { parent[max(a, b)] = min(a, b) }
                } else {
                    firstReader[key] = index
                }
            }
        }
        var numbers: [Int: Int32] = [:]
        return edits.indices.map { index in
            let top = root(index)
            if let number = numbers[top] { return number }
            let number = Int32(numbers.count)
            numbers[top] = number
            return number
        }
    }

    /// The statement that writes `edits` in `parts`: what each part read, as loaded into
    /// `source`; what each changed, from the state `source` reached after every edit.
    static func groupWrite(_ edits: [Edit], parts: [Int32], source: PostgresCatalogSource,
                           name: String) throws -> PreparedStatements.GroupWrite {
        var statement = PreparedStatements.GroupWrite(catalogPK: source.catalogPK, channel: channel,
                                                      notifiedName: payload(name: name, revision: Int.max) == "*" ? nil : name)
        var sectionParts: [String: Int32] = [:]
        var checkedItems = Set<String>()
        for (edit, part) in zip(edits, parts) {
            for id in edit.reads.sections where sectionParts.updateValue(part, forKey: id) == nil {
                if let loaded = source.sections[id] {
                    statement.reads.parts.append(part)
                    statement.reads.sections.append(loaded.pk)
                    statement.reads.versions.append(loaded.version)
                } else {
                    statement.absentSections.parts.append(part)
                    statement.absentSections.ids.append(id)
                }
            }
            // Only items the database did not hold: one an earlier edit deleted is checked
            // through its section's version.
            for id in edit.reads.absentItems where source.absentInDatabase.contains(id) && checkedItems.insert(id).inserted {
                statement.absentItems.parts.append(part)
                statement.absentItems.ids.append(id)
            }
        }
        var changed: [String] = []
        for (index, (edit, part)) in zip(edits, parts).enumerated() {
            guard case .written(_, let patch, let sections) = edit.outcome else { continue }
            statement.entryParts.append(part)
            statement.journal.append { row in
                row.integer("entry", index)
                row.integer("part", Int(part))
                row.text("patch", patch)
            }
            changed += sections
        }
        // What differs from the stored rows after every edit: items no section holds any more
        // (items move only between loaded sections), and the rows of the changed sections whose
        // section, key or content changed.
        var present = Set<String>()
        for (_, loaded) in source.sections { for item in loaded.section.items { present.insert(item.id) } }
        let changedSections = Set(changed).sorted()
        for id in changedSections {
            guard let loaded = source.sections[id], let part = sectionParts[id] else {
                throw StoreError.database("an edit of items changed section \(id) without reading it")
            }
            statement.changedSections.parts.append(part)
            statement.changedSections.sections.append(loaded.pk)
            for item in loaded.stored.items where !present.contains(item.id) {
                statement.gone.parts.append(part)
                statement.gone.ids.append(item.id)
            }
        }
        statement.rows = itemRows(changedSections.map { ($0, source.sections[$0]!.section, true) }, source: source, parts: sectionParts)
        return statement
    }

    /// The editor after `batch`, reading through `source` (loading what it misses into it), or
    /// the error that refused the batch.
    static func edit(_ name: String, with batch: Batch, in source: inout PostgresCatalogSource,
                     on connection: PostgresConnection, logger: Logger) async throws -> Result<CatalogEditor<PostgresCatalogSource>, StoreError> {
        let reads = source.reads
        while true {
            var editor = CatalogEditor(source: source)
            do {
                try editor.apply(batch)
                source.reads = editor.source.reads
                return .success(editor)
            } catch let miss as PostgresCatalogSource.Miss {
                try await source.load(miss, on: connection, logger: logger)
                source.reads = reads
            } catch let error as BatchError {
                source.reads = editor.source.reads
                return .failure(StoreError.rejected(catalog: name, error))
            }
        }
    }
}

/// The row key of each catalogue this instance wrote, by name: an optimistic group reads its
/// rows by the key directly, one round trip fewer. A key goes stale only when its catalogue is
/// deleted (a catalogue made again under the name has a new key); the read then finds no
/// catalogue row, and the group runs again locked, reading the key afresh.
final class CatalogKeys: Sendable {
    private let keys = Locked<[String: Int64]>([:])

    subscript(name: String) -> Int64? {
        get { keys.withLock { $0[name] } }
        set {
            keys.withLock { keys in
                if newValue != nil, keys[name] == nil, keys.count >= 4_096 { keys.removeAll(keepingCapacity: true) }
                keys[name] = newValue
            }
        }
    }
}

/// Batches of items only, waiting to be written to their catalogue: while one group of a
/// catalogue is being written, the batches that arrive for it wait, and the next group takes
/// them all (up to `StoreRules.maximumGroup`) in one write. Each batch still gets a revision of its own
/// and fails alone. Batches to different catalogues never wait for each other.
final class ItemWriteQueue: @unchecked Sendable {
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
                let group = Array(all.prefix(StoreRules.maximumGroup))
                let rest = Array(all.dropFirst(group.count))
                waiting[name] = rest.isEmpty ? nil : rest
                if group.isEmpty { writing.remove(name) }
                return group
            }
            if group.isEmpty { return }
            let results = await store.writeItems(group.map(\.batch), to: name)
            // Batches written again after another instance's write may come after later ones.
            for written in results.compactMap({ try? $0.get() }).sorted(by: { $0.revision < $1.revision }) { store.didWrite(written) }
            for (waiter, result) in zip(group, results) { waiter.continuation.resume(returning: result) }
        }
    }
}
