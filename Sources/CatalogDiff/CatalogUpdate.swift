import CatalogModel

/// How a catalogue changed since an observer last heard (docs/Live-updates.md): the catalogue now, and either
/// the changeset from the observer's last revision with the catalogue after each of its stages,
/// or nothing — a reset, after which the observer reloads.
public struct CatalogUpdate: Sendable, Hashable {
    /// The revision the update brings the observer to.
    public var revision: Int
    /// The catalogue at ``revision``.
    public var catalog: Catalog
    /// From the observer's last revision (`fromRevision`) to ``revision`` (`toRevision`); nil for
    /// a reset.
    public var changeset: Changeset?
    /// The catalogue after each stage of ``changeset`` (the last is ``catalog``): what a data
    /// source answers inside that stage's batch update. Empty for a reset.
    public var stages: [Catalog]
    /// The catalogue at the changeset's `fromRevision`, when the update was made from it (an
    /// observer's first update since a revision it named): what a stream sending each change's
    /// sections compares with. Not part of the update's value.
    package var previous: Catalog?

    /// Whether the observer must reload instead of animating: the first update, an observer too
    /// far behind for the journal, or a changeset larger than the observation's threshold.
    public var isReset: Bool { changeset == nil }

    /// A reset to `catalog`.
    public static func reset(_ catalog: Catalog) -> CatalogUpdate {
        CatalogUpdate(revision: catalog.revision, catalog: catalog, changeset: nil, stages: [])
    }

    public init(revision: Int, catalog: Catalog, changeset: Changeset?, stages: [Catalog]) {
        self.revision = revision
        self.catalog = catalog
        self.changeset = changeset
        self.stages = stages
    }

    public static func == (a: CatalogUpdate, b: CatalogUpdate) -> Bool {
        a.revision == b.revision && a.catalog == b.catalog && a.changeset == b.changeset && a.stages == b.stages
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(revision)
        hasher.combine(catalog)
        hasher.combine(changeset)
        hasher.combine(stages)
    }
}
