/// Where a ``CatalogEditor`` reads the catalogue it edits — a ``Catalog`` in memory, or a
/// database inside a write transaction — so that one implementation of the batch rules serves
/// both, and an edit of two shelves reads two shelves, not the catalogue.
///
/// Every answer describes the catalogue as it was before the edit began.
public protocol CatalogSource {
    /// The catalogue's revision before the edit.
    var revision: Int { get }
    /// The section with this id and its position, or `nil` when there is none.
    mutating func section(id: String) throws -> (section: Section, position: Int)?
    /// The section at this position, or `nil` past the last one.
    mutating func section(at position: Int) throws -> Section?
    /// The id of the section holding this item, or `nil` when no item has this id.
    mutating func sectionID(ofItem id: String) throws -> String?
    /// All section ids in order.
    mutating func sectionOrder() throws -> [String]
}

/// A catalogue in memory as a ``CatalogSource``, with indexes built once.
public struct InMemoryCatalogSource: CatalogSource {
    public let catalog: Catalog
    private var sectionPositions: [String: Int] = [:]
    private var itemSections: [String: String] = [:]

    public init(_ catalog: Catalog) {
        self.catalog = catalog
        for (position, section) in catalog.sections.enumerated() {
            sectionPositions[section.id] = position
            for item in section.items { itemSections[item.id] = section.id }
        }
    }

    public var revision: Int { catalog.revision }

    public func section(id: String) -> (section: Section, position: Int)? {
        sectionPositions[id].map { (catalog.sections[$0], $0) }
    }

    public func section(at position: Int) -> Section? {
        catalog.sections.indices.contains(position) ? catalog.sections[position] : nil
    }

    public func sectionID(ofItem id: String) -> String? { itemSections[id] }

    public func sectionOrder() -> [String] { catalog.sections.map(\.id) }
}
