import CatalogDiff
import CatalogImport

extension Changeset {
    /// The JSON of SPEC §3 with keys in the documented order and empty lists left out.
    var jsonValue: OrderedJSON {
        var members: [(String, OrderedJSON)] = [("stages", .array(stages.map(\.jsonValue)))]
        if let fromRevision { members.append(("fromRevision", .integer(fromRevision))) }
        if let toRevision { members.append(("toRevision", .integer(toRevision))) }
        return .object(members)
    }

    /// One line per stage for people: what each `performBatchUpdates` call does.
    var summary: String {
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

extension Stage {
    var jsonValue: OrderedJSON {
        var members: [(String, OrderedJSON)] = []
        if !sections.isEmpty { members.append(("sections", sections.jsonValue { .integer($0) })) }
        if !items.isEmpty { members.append(("items", items.jsonValue { [.integer($0.section), .integer($0.item)] })) }
        return .object(members)
    }
}

extension Changes {
    func jsonValue(_ index: (Index) -> OrderedJSON) -> OrderedJSON {
        var members: [(String, OrderedJSON)] = []
        for (key, list) in [("deleted", deleted), ("inserted", inserted), ("reloaded", reloaded)] where !list.isEmpty {
            members.append((key, .array(list.map(index))))
        }
        if !moved.isEmpty { members.append(("moved", .array(moved.map { [index($0.from), index($0.to)] }))) }
        return .object(members)
    }
}
