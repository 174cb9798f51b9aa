// What both stores share (errors, results, observers, the `CatalogDatabase` protocol) is in
// CatalogStoreCore; an app that imports CatalogStore gets it too.
@_exported import CatalogStoreCore
