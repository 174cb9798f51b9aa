/// Matches the item ids of two snapshots: which of B's ids A has and where, and which ids either
/// snapshot repeats. One of two tables behind the interface ``IDMatching`` describes:
///
/// - ``DenseIDTable``, for integer ids in a span no wider than a hash table would be (row ids,
///   indexes): each id is its own slot, with nothing to hash or probe.
/// - ``HashedIDTable``, for every other id: an open-addressing table of hashed ids.
///
/// An enum rather than an existential, so that each call reaches its table's code specialised for
/// the id type (a protocol's generic requirements called through an existential would run
/// unspecialised); the switch is taken once a call, never per id.
enum IDTable {
    case dense(DenseIDTable)
    case hashed(HashedIDTable)

    /// The table for matching `a` with `b`: dense when the ids are integers spanning no more
    /// slots than a hash table would have, else a hash table using `hash` — which reads ids by
    /// position on every probe, so the sections of `a`'s and `b`'s positions are indexed for it
    /// (in the workspace's memory when there is one).
    static func forIDs<ID: Hashable>(_ a: inout ItemIDs<ID>, _ b: inout ItemIDs<ID>, hash: IDHash,
                                     workspace: DiffWorkspace?) -> IDTable {
        let limit = HashedIDTable.slotCount(aCount: a.count, bCount: b.count)
        if let dense = DenseIDTable.fitting(a, b, within: limit, workspace: workspace) { return .dense(dense) }
        // Already indexed when a first table gave up on a non-ASCII string id.
        // (One section needs no index: every position is in it.)
        if a.sectionOf.isEmpty && a.sections.count > 1 {
            a.indexSections(storage: workspace?.takeScratch(\.aSectionOf, count: 0, filler: 0) ?? [])
        }
        if b.sectionOf.isEmpty && b.sections.count > 1 {
            b.indexSections(storage: workspace?.takeScratch(\.bSectionOf, count: 0, filler: 0) ?? [])
        }
        return .hashed(HashedIDTable(aCount: a.count, bCount: b.count, hash: hash, workspace: workspace))
    }

    /// See ``IDMatching/enter(_:)``.
    @inline(__always)
    func enter<ID: Hashable>(_ a: ItemIDs<ID>) -> [Int]? {
        switch self {
        case .dense(let table): table.enter(a)
        case .hashed(let table): table.enter(a)
        }
    }

    /// See ``IDMatching/lookUp(_:in:expectingOrder:into:)``.
    @inline(__always)
    func lookUp<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, in a: ItemIDs<ID>, expectingOrder: Bool = false,
                                                      into results: inout Results) -> Bool {
        switch self {
        case .dense(let table): table.lookUp(b, in: a, expectingOrder: expectingOrder, into: &results)
        case .hashed(let table): table.lookUp(b, in: a, expectingOrder: expectingOrder, into: &results)
        }
    }

    /// See ``IDMatching/position(of:in:_:)``.
    func position<ID: Hashable>(of id: ID, in a: ItemIDs<ID>, _ b: ItemIDs<ID>) -> Int {
        switch self {
        case .dense(let table): table.position(of: id, in: a, b)
        case .hashed(let table): table.position(of: id, in: a, b)
        }
    }

    /// Whether this is a dense table (for tests).
    var isDense: Bool {
        if case .dense = self { true } else { false }
    }
}

/// What an id table answers. Entries are A's positions and the positions of B's ids that A does
/// not have; every kind of table gives the same answers for the same ids.
protocol IDMatching: AnyObject {
    /// Enters every id of `a` (the positions must be the table's A positions, `0..<aCount`);
    /// returns the positions whose id an earlier position already has, or nil when the hash gave
    /// up on an id (see ``IDHash``).
    func enter<ID: Hashable>(_ a: ItemIDs<ID>) -> [Int]?

    /// Looks up every id of `b` among A's entries: `results.matched(q, p)` for an id A has at `p`,
    /// `results.unmatched(q, earlier)` for one it does not — entered, so that a later repeat finds
    /// it: `earlier` is the B position of that first occurrence, or −1. Ids A does not have are
    /// reported in B's order; matches may be reported out of it. False when the hash gave up.
    ///
    /// `expectingOrder` says that B is likely A with some ids deleted, inserted or moved, which a
    /// table may use to hash fewer ids; the answers are the same either way.
    func lookUp<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, in a: ItemIDs<ID>, expectingOrder: Bool,
                                                      into results: inout Results) -> Bool

    /// The A position of `id`, or −1. Only after ``lookUp(_:in:expectingOrder:into:)``, whose
    /// entries for B's ids tell an id only B has from one of A's.
    func position<ID: Hashable>(of id: ID, in a: ItemIDs<ID>, _ b: ItemIDs<ID>) -> Int
}
