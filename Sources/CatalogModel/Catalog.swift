/// A named, ordered list of sections: one collection-view screen's worth of content.
///
/// `revision` is the store's counter for the catalogue: every successful write raises it by one.
/// A catalogue read from a file (not yet stored) has revision 0.
public struct Catalog: Sendable, Hashable {
    public var name: String
    public var revision: Int
    public var sections: [Section]

    public init(name: String, revision: Int = 0, sections: [Section] = []) {
        self.name = name
        self.revision = revision
        self.sections = sections
    }

    /// The number of items over all sections.
    public var itemCount: Int {
        sections.reduce(0) { $0 + $1.items.count }
    }
}
