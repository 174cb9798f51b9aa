// What both stores share (errors, results, observers, the `CatalogDatabase` protocol) is in
// CatalogStoreCore; a program that imports CatalogPostgres gets it too.
@_exported import CatalogStoreCore
