import CatalogModel

extension StoreRules {
    /// The report of the first of `ids` not stored in canonical form (`Identifier`), naming an
    /// id of `ids` that is the same id (canonically equivalent, though other bytes), if one is
    /// there; nil when every id is canonical. What both stores' `checkIntegrity` says of a
    /// database written by a version that stored ids as given — of catalogue names (`catalog`
    /// nil: each name is its own catalogue) and of one catalogue's section or item ids.
    ///
    /// - Complexity: O(*n*) when every id is canonical; a report compares the offending id with
    ///   every other.
    package static func nonCanonicalID(in ids: [String], catalog: String?) -> StoreError? {
        guard let id = ids.first(where: { !Identifier.isCanonical($0) }) else { return nil }
        // Swift's `==` is canonical equivalence; the databases compare bytes.
        let twin = ids.first { $0 == id && !$0.utf8.elementsEqual(id.utf8) }
        return .nonCanonicalID(catalog: catalog ?? id, id: id, equivalent: twin)
    }
}
