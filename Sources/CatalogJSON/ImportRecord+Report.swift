import CatalogImport
import CatalogStore

extension ImportRecord {
    /// The store's history line for an import, from the importer's report.
    package init(_ report: ImportReport) {
        self.init(source: report.file, format: report.format.rawValue, shape: report.shape.rawValue,
                  derivedIDs: report.derivedIDs, duplicates: report.duplicates, ignoredKeys: report.ignoredKeyCount)
    }
}
