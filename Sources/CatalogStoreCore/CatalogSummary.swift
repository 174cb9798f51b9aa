import CatalogModel

/// A line of `catalog list`: a catalogue's name, revision and size.
public struct CatalogSummary: Sendable, Hashable {
    public var name: String
    public var revision: Int
    public var sections: Int
    public var items: Int

    package init(name: String, revision: Int, sections: Int, items: Int) {
        (self.name, self.revision, self.sections, self.items) = (name, revision, sections, items)
    }
}
