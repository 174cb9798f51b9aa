/// The batch updates that turn one snapshot into another, as docs/Changesets.md defines them: a list of
/// stages, each one `performBatchUpdates` call, applied in order.
public struct Changeset: Sendable, Hashable, Codable {
    public var stages: [Stage]
    public var fromRevision: Int?
    public var toRevision: Int?

    public init(stages: [Stage] = [], fromRevision: Int? = nil, toRevision: Int? = nil) {
        self.stages = stages
        self.fromRevision = fromRevision
        self.toRevision = toRevision
    }

    /// Whether the changeset changes nothing.
    @inlinable public var isEmpty: Bool { stages.allSatisfy(\.isEmpty) }

    /// Every index and move the changeset lists, over all its stages.
    public var operationCount: Int {
        stages.reduce(0) { $0 + $1.sections.count + $1.items.count }
    }
}

/// One `performBatchUpdates` call. Deletes, reloads and move sources use indices of the state
/// before the stage; inserts and move destinations use indices of the state after it.
public struct Stage: Sendable, Hashable, Codable {
    public var sections: SectionChanges
    public var items: ItemChanges

    public init(sections: SectionChanges = SectionChanges(), items: ItemChanges = ItemChanges()) {
        self.sections = sections
        self.items = items
    }

    @inlinable public var isEmpty: Bool { sections.isEmpty && items.isEmpty }

    /// Whether the stage only reloads (it deletes, inserts and moves nothing): it changes what
    /// cells show, not which cells there are.
    package var onlyReloads: Bool {
        sections.deleted.isEmpty && sections.inserted.isEmpty && sections.moved.isEmpty
            && items.deleted.isEmpty && items.inserted.isEmpty && items.moved.isEmpty
    }

    enum CodingKeys: String, CodingKey { case sections, items }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sections = try container.decodeIfPresent(SectionChanges.self, forKey: .sections) ?? SectionChanges()
        items = try container.decodeIfPresent(ItemChanges.self, forKey: .items) ?? ItemChanges()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !sections.isEmpty { try container.encode(sections, forKey: .sections) }
        if !items.isEmpty { try container.encode(items, forKey: .items) }
    }
}

/// A move from a before-index to an after-index; encoded as `[from, to]`.
public struct Move<Index: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var from: Index
    public var to: Index

    public init(from: Index, to: Index) {
        self.from = from
        self.to = to
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        from = try container.decode(Index.self)
        to = try container.decode(Index.self)
        if !container.isAtEnd {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a move is [from, to]")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(from)
        try container.encode(to)
    }
}

/// The position of an item: its section's index and its index in the section; encoded as
/// `[section, item]`.
public struct ItemPath: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (a: ItemPath, b: ItemPath) -> Bool {
        (a.section, a.item) < (b.section, b.item)
    }

    public var description: String { "[\(section), \(item)]" }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        section = try container.decode(Int.self)
        item = try container.decode(Int.self)
        if !container.isAtEnd {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "an index path is [section, item]")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(section)
        try container.encode(item)
    }
}

/// Section operations of one stage: indices are section indices.
public typealias SectionChanges = Changes<Int>

/// Item operations of one stage: indices are `[section, item]` paths.
public typealias ItemChanges = Changes<ItemPath>

/// The four kinds of operation of one stage, for sections (`Int`) or items (``ItemPath``).
/// Empty lists are left out of the JSON and may be omitted when reading it.
public struct Changes<Index: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var deleted: [Index]
    public var inserted: [Index]
    public var reloaded: [Index]
    public var moved: [Move<Index>]

    public init(deleted: [Index] = [], inserted: [Index] = [], reloaded: [Index] = [], moved: [Move<Index>] = []) {
        self.deleted = deleted
        self.inserted = inserted
        self.reloaded = reloaded
        self.moved = moved
    }

    // Inlinable, so that other modules (the JSON writers, the simulator's callers) test a
    // concrete `Changes<ItemPath>` directly: called generically from outside, one `isEmpty`
    // cost a metadata lookup and four witness calls, about 2,400 instructions.
    @inlinable public var isEmpty: Bool { deleted.isEmpty && inserted.isEmpty && reloaded.isEmpty && moved.isEmpty }

    /// How many operations the changes hold.
    @inlinable public var count: Int { deleted.count + inserted.count + reloaded.count + moved.count }

    enum CodingKeys: String, CodingKey { case deleted, inserted, reloaded, moved }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deleted = try c.decodeIfPresent([Index].self, forKey: .deleted) ?? []
        inserted = try c.decodeIfPresent([Index].self, forKey: .inserted) ?? []
        reloaded = try c.decodeIfPresent([Index].self, forKey: .reloaded) ?? []
        moved = try c.decodeIfPresent([Move<Index>].self, forKey: .moved) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !deleted.isEmpty { try c.encode(deleted, forKey: .deleted) }
        if !inserted.isEmpty { try c.encode(inserted, forKey: .inserted) }
        if !reloaded.isEmpty { try c.encode(reloaded, forKey: .reloaded) }
        if !moved.isEmpty { try c.encode(moved, forKey: .moved) }
    }
}
