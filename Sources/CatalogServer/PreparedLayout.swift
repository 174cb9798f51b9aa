import CatalogLayout
import CatalogModel

/// A catalogue laid out for one configuration and viewport: what ``CatalogRoutes``'s layout
/// answers query, at any offset and rect.
struct PreparedLayout: Sendable {
    var catalog: Catalog
    var input: LayoutInput
    var layout: Layout
}
