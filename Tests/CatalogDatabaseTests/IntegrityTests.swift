import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

/// `checkIntegrity` reports the same problem on every backend, in the same words: the rules it
/// checks are written once (`StoreRules`).
@Suite struct IntegrityTests {
    static let composed = "caf\u{E9}", decomposed = "cafe\u{301}"

    static func shelf(_ name: String, items: [String]) -> Catalog {
        Catalog(name: name, sections: [
            Section(id: "s", kind: .bookshelf, capacity: 4,
                    items: items.map { Item(id: $0, content: .book(Book(title: $0, cover: "c"))) }),
        ])
    }

    /// A catalogue name written in another form of a name already there (by a version that
    /// stored names as given) is reported with that twin.
    @Test(arguments: Backend.available)
    func aNonCanonicalNameIsReportedWithItsTwin(backend: Backend) async throws {
        try await withDatabaseAndSQL(backend) { store, execute in
            try await store.replace(Self.shelf(Self.composed, items: ["a"]))
            try await store.replace(Self.shelf("other", items: ["b"]))
            try await store.checkIntegrity()
            try await execute("UPDATE catalog SET name = '\(Self.decomposed)' WHERE name = 'other'")
            await #expect(throws: StoreError.nonCanonicalID(catalog: Self.decomposed, id: Self.decomposed, equivalent: Self.composed)) {
                try await store.checkIntegrity()
            }
        }
    }

    /// An item id in another form of an id of the same catalogue is reported with that twin; one
    /// without a twin is reported alone.
    @Test(arguments: Backend.available)
    func aNonCanonicalItemIDIsReportedWithItsTwin(backend: Backend) async throws {
        try await withDatabaseAndSQL(backend) { store, execute in
            try await store.replace(Self.shelf("shelf", items: [Self.composed, "other"]))
            try await execute("UPDATE item SET id = 'x\(Self.decomposed)' WHERE id = 'other'")
            await #expect(throws: StoreError.nonCanonicalID(catalog: "shelf", id: "x\(Self.decomposed)", equivalent: nil)) {
                try await store.checkIntegrity()
            }
            try await execute("UPDATE item SET id = '\(Self.decomposed)' WHERE id = 'x\(Self.decomposed)'")
            await #expect(throws: StoreError.nonCanonicalID(catalog: "shelf", id: Self.decomposed, equivalent: Self.composed)) {
                try await store.checkIntegrity()
            }
        }
    }
}
