import CatalogModel

/// A catalogue with what its clients resume from: its snapshot at its revision and the journal
/// entries kept for it (each the patch that rebuilds the revision before). `catalog copy` carries
/// archives from one database to another — SQLite to PostgreSQL, say — so that a client's
/// `Last-Event-ID` or `?since=` goes on working across the move.
public struct CatalogArchive: Sendable, Hashable {
    /// One journal entry: the patch (the journal's own JSON) that rebuilds `revision - 1`.
    public struct JournalEntry: Sendable, Hashable {
        public var revision: Int
        public var patch: String

        package init(revision: Int, patch: String) {
            self.revision = revision
            self.patch = patch
        }
    }

    /// The catalogue at its current revision.
    public var catalog: Catalog
    /// The journal, oldest first: contiguous revisions ending at the catalogue's.
    public var journal: [JournalEntry]

    package init(catalog: Catalog, journal: [JournalEntry]) {
        self.catalog = catalog
        self.journal = journal
    }

    /// Checks what a store relies on before it writes an archive: a valid catalogue, journal
    /// revisions contiguous and ending at the catalogue's, and patches that parse.
    package func validated() throws(StoreError) -> CatalogArchive {
        let catalog = self.catalog.canonicalized()
        do throws(CatalogValidationError) {
            try catalog.validate()
        } catch {
            throw .invalidCatalog(error)
        }
        for (index, entry) in journal.enumerated() {
            let expected = catalog.revision - (journal.count - 1 - index)
            guard entry.revision == expected, entry.revision > 0 else {
                throw .database("the journal of \(catalog.name) is not contiguous up to revision \(catalog.revision) (found \(entry.revision) where \(expected) belongs)")
            }
            guard (try? RevisionPatch.decoded(entry.patch)) != nil else {
                throw .database("the journal entry of revision \(entry.revision) of \(catalog.name) does not parse")
            }
        }
        return CatalogArchive(catalog: catalog, journal: journal)
    }
}
