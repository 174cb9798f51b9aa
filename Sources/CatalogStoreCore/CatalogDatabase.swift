import CatalogDiff
import CatalogModel

/// What the server, the command line and apps call on a database of catalogues, whichever engine
/// holds it: `CatalogStore` (SQLite, the embedded default) or the PostgreSQL store of the
/// `CatalogPostgres` module, which several `catalog serve` instances share.
///
/// Both keep the same guarantees (docs/Batches-and-moves.md): every write is one transaction that
/// raises its catalogue's revision by exactly one or changes nothing; batches and moves go through
/// one `CatalogEditor`, so every rule (capacity, kinds, indices, `baseRevision`) is the same on
/// both; every error is a ``StoreError`` and a write that throws has changed nothing.
public protocol CatalogDatabase: AnyObject, Sendable {
    /// Where the database is, for messages: a file path, or a URL without its password.
    var location: String { get }

    /// Every catalogue, by name.
    func summaries() async throws(StoreError) -> [CatalogSummary]
    /// The catalogue's current revision.
    func revision(of name: String) async throws(StoreError) -> Int
    /// The catalogue's current snapshot, with its revision.
    func catalog(named name: String) async throws(StoreError) -> Catalog
    /// Stores several catalogues in one transaction, each replacing the content of any catalogue
    /// of its name: all of them land, or none does.
    @discardableResult
    func replace(_ catalogs: [(Catalog, ImportRecord?)], progress: ((_ written: Int, _ total: Int) -> Void)?)
        async throws(StoreError) -> [WriteResult]
    /// Applies a batch to a catalogue in one transaction: all of it, or nothing.
    func apply(_ batch: Batch, to catalog: String) async throws(StoreError) -> WriteResult
    /// Applies a client's numbered write in one transaction with the record of its number and
    /// `answer(result)`; a resend of the client's last write gets its recorded answer instead (see
    /// `CatalogStore.apply(_:to:as:answer:)`).
    func apply(_ batch: Batch, to catalog: String, as write: ClientWrite,
               answer: @escaping @Sendable (WriteResult) -> RecordedAnswer) async throws(StoreError) -> ClientWriteOutcome
    /// Records the answer to a client's numbered write refused for good, when its number is the
    /// next one (see `CatalogStore.recordRefusal(_:to:)`).
    func recordRefusal(_ answer: RecordedAnswer, to write: ClientWrite) async throws(StoreError)
    /// What ``apply(_:to:)`` would do — the same checks and errors, the revision and changeset —
    /// without writing anything.
    func preview(_ batch: Batch, to catalog: String) async throws(StoreError) -> WriteResult
    /// What ``replace(_:progress:)`` would do, without writing anything.
    func previewReplacing(_ catalogs: [(Catalog, ImportRecord?)]) async throws(StoreError) -> [WriteResult]
    /// Deletes catalogues, all in one transaction or none; `ifRevision` guards each.
    func delete(_ requests: [(name: String, ifRevision: Int?)]) async throws(StoreError) -> [DeletedCatalog]
    /// One staged changeset from `revision` to the current revision (see
    /// `CatalogStore.changes(in:since:)`).
    func changes(in name: String, since revision: Int) async throws(StoreError) -> Changeset
    /// The catalogue as it stood at `revision`, rebuilt through the journal.
    ///
    /// - Throws: ``StoreError/revisionTooOld(catalog:requested:oldest:)``,
    ///   ``StoreError/revisionNotReached(catalog:requested:current:)``, ``StoreError/unknownCatalog(_:)``.
    func catalog(named name: String, at revision: Int) async throws(StoreError) -> Catalog
    /// The last `count` writes, newest first, one changeset each (see `CatalogStore.history(of:count:)`).
    func history(of name: String, count: Int) async throws(StoreError) -> [Changeset]
    /// How many revisions of each catalogue the journal keeps at least.
    func journalRevisions() async throws(StoreError) -> Int
    /// Makes the journal keep at least `count` revisions of each catalogue (a setting stored in
    /// the database, so every instance that writes it follows it).
    func setJournalRevisions(_ count: Int) async throws(StoreError)
    /// The catalogue named `name` with its journal, for a copy to another database.
    func archive(of name: String) async throws(StoreError) -> CatalogArchive
    /// The deleted catalogues' last revisions, by name (a catalogue made again goes on from them).
    func retiredCatalogs() async throws(StoreError) -> [String: Int]
    /// What the database knows of `client`'s numbered writes now (its last number, where its
    /// last applied write landed); nil when it has none. Read after a snapshot, it says which of
    /// the client's writes the snapshot holds (``ClientPosition/acknowledged(in:at:)``).
    func clientPosition(of client: String) async throws(StoreError) -> ClientPosition?
    /// The database's identity: a random id made with the database and kept by a whole copy
    /// (``adoptIdentity(_:)``). A device that sees another one follows another database.
    func identity() async throws(StoreError) -> String
    /// Takes `identity` as the database's own: what `catalog copy` of a whole database does, so
    /// that the copy is, to the devices, the same server moved.
    func adoptIdentity(_ identity: String) async throws(StoreError)
    /// Every client's record of numbered writes (its last number and the answers to its last
    /// request), for a whole copy to another database.
    func clientRecords() async throws(StoreError) -> [ClientRecord]
    /// Writes `archives` as they are — revisions and journals — the `retired` revisions of
    /// names no catalogue has, and the `clients`' records (a client's number only goes forward:
    /// a record is taken where the database has none or an older number), in one transaction:
    /// all of it, or nothing. A catalogue of the same name already there is refused
    /// (``StoreError/catalogExists(_:)``) unless `replacing`.
    func restore(_ archives: [CatalogArchive], retired: [String: Int], clients: [ClientRecord], replacing: Bool) async throws(StoreError)
    /// Closes the database's connections (a SQLite file's log is checkpointed into it); later
    /// calls fail. For a process about to exit: releasing the store does the same.
    func close()
    /// Nil when the database answers; otherwise why not, in a sentence (`GET /ready`). Cheap:
    /// a balancer asks often.
    func readinessProblem() async -> String?
    /// Checks every stored rule of the whole database; throws the first problem found.
    func checkIntegrity() async throws(StoreError)
    /// The connections' figures now, for metrics (cheap: a scrape asks every few seconds).
    func statistics() -> DatabaseStatistics
    /// Every change to the catalogue named `name`, as it happens, from whichever process writes
    /// it (see `CatalogStore.updates(of:from:resetThreshold:)`).
    func updates(of name: String, from revision: Int?, resetThreshold: Int) -> CatalogUpdates
    /// The observer behind ``updates(of:from:resetThreshold:)``, for callers that also wait with a
    /// time limit.
    func observer(of name: String, from revision: Int?, resetThreshold: Int) -> CatalogObserver
}

extension CatalogDatabase {
    /// None: a backend that keeps figures of its connections says so by implementing this.
    public func statistics() -> DatabaseStatistics { DatabaseStatistics() }

    /// Moves an item (a batch of one `moveItem`).
    @discardableResult
    public func move(item: String, toSection section: String, index: Int? = nil, policy: MovePolicy = .reject,
                     in catalog: String, baseRevision: Int? = nil) async throws(StoreError) -> WriteResult {
        try await apply(Batch(baseRevision: baseRevision,
                              operations: [.moveItem(id: item, toSection: section, index: index, policy: policy)]), to: catalog)
    }
}

extension CatalogDatabase {
    /// Writes `archives` and the `retired` revisions, with no client records (see
    /// ``restore(_:retired:clients:replacing:)``).
    public func restore(_ archives: [CatalogArchive], retired: [String: Int], replacing: Bool) async throws(StoreError) {
        try await restore(archives, retired: retired, clients: [], replacing: replacing)
    }
}
