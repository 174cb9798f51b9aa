import CatalogModel

extension Changeset {
    /// One line per stage for people: what each `performBatchUpdates` call does.
    public var summary: String {
        if stages.isEmpty { return "no changes" }
        return stages.enumerated().map { k, stage in
            var parts: [String] = []
            for (noun, changes) in [("section", AnyChanges(stage.sections)), ("item", AnyChanges(stage.items))] {
                for (verb, count) in [("deleted", changes.deleted), ("inserted", changes.inserted),
                                      ("moved", changes.moved), ("reloaded", changes.reloaded)] where count > 0 {
                    parts.append("\(plural(count, noun)) \(verb)")
                }
            }
            return "stage \(k + 1): " + parts.joined(separator: ", ")
        }.joined(separator: "\n")
    }
}

/// Operation counts of one kind of changes, sections or items alike.
private struct AnyChanges {
    var deleted, inserted, moved, reloaded: Int

    init<Index>(_ changes: Changes<Index>) {
        deleted = changes.deleted.count
        inserted = changes.inserted.count
        moved = changes.moved.count
        reloaded = changes.reloaded.count
    }
}
