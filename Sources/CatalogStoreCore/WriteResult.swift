import CatalogDiff
import CatalogModel

/// The outcome of one write to a catalogue: an import, a batch or a move.
public struct WriteResult: Sendable, Hashable {
    public var catalog: String
    /// The revision before the write; 0 when the catalogue is new.
    public var previousRevision: Int
    /// The revision the write made: `previousRevision + 1`.
    public var revision: Int
    /// The staged changeset from the previous content to the new one (from an empty catalogue
    /// when the catalogue is new), valid under `BatchUpdateSimulator`.
    public var changeset: Changeset

    package init(catalog: String, previousRevision: Int, revision: Int, changeset: Changeset) {
        self.catalog = catalog
        self.previousRevision = previousRevision
        self.revision = revision
        self.changeset = changeset
    }

    /// A write that changed nothing (a book moved to where it is): it keeps the revision, so
    /// that a client cannot push every feed past the journal for free.
    package static func unchanged(catalog: String, revision: Int) -> WriteResult {
        WriteResult(catalog: catalog, previousRevision: revision, revision: revision,
                    changeset: Changeset(stages: [], fromRevision: revision, toRevision: revision))
    }
}
