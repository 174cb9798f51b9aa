import CatalogDiff
import CatalogModel

extension StoreRules {
    /// How many revisions of each catalogue the journal keeps at least, unless the database was
    /// set to keep another number (a setting stored in the database, which every instance follows).
    package static let defaultJournalRevisions = 1_000

    /// The numbers of revisions a journal may be set to keep.
    package static let journalRevisionsRange = 1...10_000_000

    /// Every this many revisions the journal forgets those past the number it keeps: deleting
    /// old entries on every write dirtied one more page for each commit to append to the log.
    package static let journalPruningInterval = 64

    /// Whether the write that made `revision` also forgets the journal's entries of revisions at
    /// or below `revision` minus the number of revisions the database keeps (its
    /// `journal_revisions` setting, else ``defaultJournalRevisions``): every
    /// ``journalPruningInterval`` revisions of a catalogue, in the write's transaction.
    package static func prunesJournal(afterWriting revision: Int) -> Bool {
        revision % journalPruningInterval == 0
    }

    /// The changeset between a revision the journal rebuilt and the current one, with their
    /// revisions. Writes that only moved things (`restoredContent` false) change no content:
    /// there is nothing to compare for reloads.
    ///
    /// When the two have the same sections in the same order, the sections that hold the very
    /// same items (the same storage: revisions of a kept snapshot share every section no write in
    /// between touched) with the same kind, title and capacity are left out of the diff: they
    /// change nothing, and an update costs what the writes touched, not the catalogue's size.
    /// (A store's revisions repeat no id, so no duplicate can hide in a section left out.)
    package static func changeset(from old: Catalog, to current: Catalog, restoredContent: Bool) throws(StoreError) -> Changeset {
        guard let touched = old.sectionsNotShared(with: current), touched.count < old.sections.count else {
            return try diff(from: old, to: current, restoredContent: restoredContent)
        }
        let keep = { (catalog: Catalog) in
            Catalog(name: catalog.name, revision: catalog.revision, sections: touched.map { catalog.sections[$0] })
        }
        return try diff(from: keep(old), to: keep(current), restoredContent: restoredContent).placingSections(at: touched)
    }

    /// ``changeset(from:to:restoredContent:)`` of every section of the two catalogues.
    private static func diff(from old: Catalog, to current: Catalog, restoredContent: Bool) throws(StoreError) -> Changeset {
        do {
            guard restoredContent else {
                var changeset = try StagedDiff.changeset(from: old.shape, to: current.shape)
                (changeset.fromRevision, changeset.toRevision) = (old.revision, current.revision)
                return changeset
            }
            return try Changeset(from: old, to: current)
        } catch {
            throw StoreError.database("the journal rebuilt a revision that repeats ids: \(error)")
        }
    }

    /// The entries of `journal` (oldest first) that reach `revision` without a gap.
    package static func contiguousTail(_ journal: [CatalogArchive.JournalEntry], endingAt revision: Int) -> [CatalogArchive.JournalEntry] {
        var tail: [CatalogArchive.JournalEntry] = []
        var expected = revision
        for entry in journal.reversed() {
            guard entry.revision == expected else { break }
            tail.append(entry)
            expected -= 1
        }
        return tail.reversed()
    }
}

extension Catalog {
    /// The indices of the sections that `other` does not share with this catalogue — holding
    /// other items than the same storage, or another kind, title or capacity — when both have
    /// the same sections in the same order; nil when they do not.
    package func sectionsNotShared(with other: Catalog) -> [Int]? {
        guard sections.count == other.sections.count else { return nil }
        var touched: [Int] = []
        for index in sections.indices {
            let (a, b) = (sections[index], other.sections[index])
            guard a.id == b.id else { return nil }
            let sameItems = a.items.withUnsafeBufferPointer { x in
                b.items.withUnsafeBufferPointer { y in x.count == y.count && x.baseAddress == y.baseAddress }
            }
            if !sameItems || a.kind != b.kind || a.title != b.title || a.capacity != b.capacity { touched.append(index) }
        }
        return touched
    }
}
