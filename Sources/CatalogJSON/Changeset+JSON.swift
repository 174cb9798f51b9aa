import CatalogDiff
import CatalogImport
import CatalogLayout
import CatalogStore

// The JSON documents of docs/Changesets.md, Command-line.md and HTTP-API.md, written with ``OrderedJSON`` so keys come in the
// documented order: what `catalog … --json` prints and what the HTTP API answers.

extension Changeset {
    /// The JSON of docs/Changesets.md with keys in the documented order and empty lists left out.
    package var jsonValue: OrderedJSON {
        var members: [(String, OrderedJSON)] = [("stages", .array(stages.map(\.jsonValue)))]
        if let fromRevision { members.append(("fromRevision", .integer(fromRevision))) }
        if let toRevision { members.append(("toRevision", .integer(toRevision))) }
        return .object(members)
    }
}

extension Stage {
    package var jsonValue: OrderedJSON {
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
