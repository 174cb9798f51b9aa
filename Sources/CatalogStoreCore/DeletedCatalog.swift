import CatalogModel

/// A catalogue that a delete removed: its name, the revision it had, and what it held.
public struct DeletedCatalog: Sendable, Hashable {
    public var name: String
    /// The revision the catalogue had when it was deleted. A catalogue made later under the
    /// same name starts two revisions past it (the deletion counts as one).
    public var revision: Int
    public var sections: Int
    public var items: Int

    package init(name: String, revision: Int, sections: Int, items: Int) {
        (self.name, self.revision, self.sections, self.items) = (name, revision, sections, items)
    }
}
