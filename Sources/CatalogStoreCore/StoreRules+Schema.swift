
extension StoreRules {
    /// Why a database whose applied migrations are `applied` cannot be opened by this build: the
    /// first one it does not know, which a newer version applied (this one would misread its
    /// schema); nil when it knows them all. Both stores refuse such a database with this reason.
    package static func newerSchemaReason(applied: [String], known: [String]) -> String? {
        guard let unknown = applied.first(where: { !known.contains($0) }) else { return nil }
        return "the database was migrated by a newer version of CatalogKit (migration \(unknown), which this version does not know); use that version or newer"
    }
}
