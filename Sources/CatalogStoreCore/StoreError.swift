import CatalogModel

/// Why the store refused a request. Every write that throws one has changed nothing.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file could not be opened or migrated (not a database, no permission, …).
    case cannotOpen(path: String, reason: String)
    /// No catalogue has this name.
    case unknownCatalog(String)
    /// The catalogue breaks a rule of the model; nothing was written.
    case invalidCatalog(CatalogValidationError)
    /// SQLite refused the write (a constraint, a full disk, a lock held too long).
    case database(String)
    /// Two items of a section share an order key, or the sections of a catalogue are not at
    /// positions 0..<n: found by a write's check (the write was rolled back) or by
    /// `checkIntegrity`.
    case positionsOutOfOrder(catalog: String, section: String)
    /// A section holds more items than its capacity (found by a write's check or by
    /// `checkIntegrity`, never left by a write: it was rolled back).
    case overCapacity(catalog: String, section: String, count: Int, capacity: Int)
    /// Two catalogues of one write share a name: the second would silently replace the first.
    /// `sources` are the files they came from, where known.
    case catalogNamedTwice(String, sources: [String])
    /// The journal no longer reaches back to this revision; reload the snapshot instead.
    case revisionTooOld(catalog: String, requested: Int, oldest: Int)
    /// The catalogue has not reached this revision (or it is negative).
    case revisionNotReached(catalog: String, requested: Int, current: Int)
    /// An id or catalogue name is stored in a form other than the canonical one (`Identifier`),
    /// found by `checkIntegrity`: written by a version that stored ids as given. `equivalent` is
    /// another id of the catalogue that is the same id (canonically equivalent), if there is one.
    case nonCanonicalID(catalog: String, id: String, equivalent: String?)
    /// A batch or a move broke a rule (a full shelf, an unknown id, a stale base revision, …);
    /// nothing of it was written.
    case rejected(catalog: String, BatchError)
    /// Observers can no longer learn of writes by other connections or processes: the database
    /// file was removed or replaced, or a read of it failed. Their sequences throw this.
    case cannotWatch(path: String, reason: String)
    /// A setting of the store was given a value it cannot take (the message says which values
    /// it can).
    case invalidSetting(String)
    /// The database server could not be reached, or the connection to it broke (a PostgreSQL
    /// store): the request may be retried. A write that throws it before its commit was sent
    /// changed nothing.
    case unavailable(location: String, reason: String)
    /// A catalogue of this name is already in the database a copy writes to (`catalog copy`
    /// replaces it only when told).
    case catalogExists(String)
    /// A client's numbered write (``ClientWrite``) is not the next one the database expects of
    /// that client: a gap (a write missing before it) or a write applied long ago, whose answer is
    /// no longer kept. Nothing was written.
    case outOfSequence(client: String, sequence: Int, expected: Int)
    /// A client's numbered write came again with its number but another content: the number is
    /// taken by a write this one is not (two devices sharing a client id — a device database
    /// copied, or restored from a backup). Nothing was written; the recorded answer is not given.
    case numberTaken(client: String, sequence: Int)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open the database \(path): \(reason)"
        case .unknownCatalog(let name):
            "no catalogue named \"\(name)\""
        case .invalidCatalog(let error):
            error.description
        case .database(let message):
            "the database refused the write: \(message)"
        case .positionsOutOfOrder(let catalog, let section):
            "positions in section \"\(section)\" of catalogue \"\(catalog)\" repeat or are out of order; the write was rolled back"
        case .overCapacity(let catalog, let section, let count, let capacity):
            "section \"\(section)\" of catalogue \"\(catalog)\" holds \(count) items, over its capacity of \(capacity)"
        case .catalogNamedTwice(let name, let sources) where sources.count == 2:
            "\(sources[0]) and \(sources[1]) both name the catalogue \"\(name)\"; import them separately or rename one"
        case .catalogNamedTwice(let name, _):
            "the catalogue \"\(name)\" appears twice in one write"
        case .revisionTooOld(let catalog, let requested, let oldest):
            "revision \(requested) of catalogue \"\(catalog)\" is too old: the journal keeps revisions from \(oldest) on; reload the snapshot"
        case .revisionNotReached(let catalog, let requested, let current):
            "catalogue \"\(catalog)\" has no revision \(requested): it is at revision \(current)"
        case .nonCanonicalID(let catalog, let id, let equivalent?):
            "catalogue \"\(catalog)\" holds the ids \"\(equivalent)\" and \"\(id)\", which are the same id (canonically equivalent Unicode)"
        case .nonCanonicalID(let catalog, let id, nil):
            "catalogue \"\(catalog)\" holds the id \"\(id)\" in a form other than Unicode Normalization Form C; lookups do not find it"
        case .rejected(let catalog, let error):
            "catalogue \"\(catalog)\": \(error)"
        case .invalidSetting(let message):
            message
        case .cannotWatch(let path, let reason):
            "cannot watch the database \(path) for writes by other connections: \(reason)"
        case .unavailable(let location, let reason):
            "the database \(location) is unavailable: \(reason)"
        case .catalogExists(let name):
            "the catalogue \"\(name)\" is already in the target database; pass --replace to replace it"
        case .outOfSequence(let client, let sequence, let expected) where sequence > expected:
            "client \"\(client)\" sent write \(sequence) but write \(expected) is the next one: send the writes in order, without a gap"
        case .outOfSequence(let client, let sequence, let expected):
            "client \"\(client)\" sent write \(sequence), which was applied before; only the answer to the last write (\(expected - 1)) is kept, and write \(expected) is the next one"
        case .numberTaken(let client, let sequence):
            "client \"\(client)\" sent write \(sequence) with another content than the write recorded under that number: two devices share the client id (a copied device database?); the device takes a new one"
        }
    }
}
