import CatalogDiff
import CatalogImport
import CatalogLayout
import CatalogModel
import CatalogStore

/// An error the command line reports as one line on stderr with exit status 1.
package struct CLIError: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }

    /// Whether `error` is one of the library's typed errors, whose description is already a
    /// complete, readable sentence.
    static func isKnown(_ error: any Error) -> Bool {
        error is ImportError || error is StoreError || error is CatalogValidationError || error is DuplicateIDError
            || error is LayoutConfigurationError
    }
}
