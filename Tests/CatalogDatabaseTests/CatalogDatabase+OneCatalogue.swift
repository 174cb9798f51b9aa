import CatalogModel
import CatalogStore

/// The single-catalogue forms of ``CatalogStore``'s writes, for the tests that hold a store as
/// `any CatalogDatabase`. (Kept to this target: in another, they would compete with
/// ``CatalogStore``'s own synchronous methods in async tests.)
extension CatalogDatabase {
    /// One catalogue, as ``CatalogStore/replace(_:record:)`` takes it.
    @discardableResult
    func replace(_ catalog: Catalog, record: ImportRecord? = nil) async throws(StoreError) -> WriteResult {
        try await replace([(catalog, record)], progress: nil)[0]
    }

    /// One catalogue, as ``CatalogStore/delete(_:ifRevision:)`` takes it.
    @discardableResult
    func delete(_ name: String, ifRevision: Int? = nil) async throws(StoreError) -> DeletedCatalog {
        try await delete([(name, ifRevision)])[0]
    }
}
