import CatalogDiff
import CatalogModel

extension StoreRules {
    /// The catalogues in the form they are stored in, once each is known to be storable: ids and
    /// names in one canonical form (`Identifier`), so SQLite's byte comparisons agree with
    /// Swift's string equality; every rule of the model kept; no name twice.
    package static func checkedForReplacing(_ catalogs: [(Catalog, ImportRecord?)]) throws(StoreError) -> [(Catalog, ImportRecord?)] {
        let catalogs = catalogs.map { ($0.0.canonicalized(), $0.1) }
        for (catalog, _) in catalogs {
            do throws(CatalogValidationError) {
                try catalog.validate()
            } catch {
                throw .invalidCatalog(error)
            }
        }
        try checkDistinctNames(catalogs)
        return catalogs
    }

    /// The result of replacing `old` (at its revision; 0 when new) by `new`: the next revision and
    /// the changeset between them.
    package static func replacement(of old: Catalog, by new: Catalog) throws(StoreError) -> WriteResult {
        var new = new
        new.revision = old.revision + 1
        do {
            let changeset = try Changeset(from: old, to: new)
            return WriteResult(catalog: new.name, previousRevision: old.revision, revision: new.revision, changeset: changeset)
        } catch {
            throw StoreError.database("the stored catalogue repeats ids: \(error)")
        }
    }

    /// Throws ``StoreError/catalogNamedTwice(_:sources:)`` when two of the catalogues share a name:
    /// in one write the second would silently replace the first. ``replace(_:progress:)`` checks
    /// it; callers that must not even open the database for bad input (the CLI) call it first.
    package static func checkDistinctNames(_ catalogs: [(Catalog, ImportRecord?)]) throws(StoreError) {
        var sources: [String: String?] = [:]
        for (catalog, record) in catalogs {
            if let first = sources.updateValue(record?.source, forKey: catalog.name) {
                let both = [first, record?.source].compactMap { $0 }
                throw .catalogNamedTwice(catalog.name, sources: both)
            }
        }
    }
}
