import CatalogDiff
import CatalogModel

extension StoreRules {
    /// The edit's changeset; a stored catalogue that repeats ids (which no write makes) is a
    /// ``StoreError/database(_:)``.
    package static func changeset<Source: CatalogSource>(of editor: CatalogEditor<Source>, catalog: String) throws -> Changeset {
        do {
            return try editor.changeset(catalog: catalog)
        } catch {
            throw StoreError.database("the stored catalogue repeats ids: \(error)")
        }
    }
}
