import CatalogDiff
import CatalogStore

// The compact JSON of a write's answer and of a changeset, written straight into bytes: the HTTP
// API answers every move and batch with one, and building the ``OrderedJSON`` tree first (an
// array or object per stage, list and index path) cost more than the rest of the handler's own
// work; a change feed's changeset of hundreds of moves cost a tenth of its answer's time. The
// bytes are exactly `Documents.write(result).serialized(pretty: false)` and
// `changeset.jsonValue.serialized(pretty: false)` (tested on random changesets).

extension Documents {
    /// `Documents.write(result)` as compact JSON bytes.
    package static func compactWrite(_ result: WriteResult) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out.append(contentsOf: #"{"revision":"#.utf8)
        append(result.revision, to: &out)
        out.append(contentsOf: #","changeset":"#.utf8)
        result.changeset.appendCompactJSON(to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `changeset.jsonValue` as compact JSON bytes (docs/Changesets.md).
    package static func compactChangeset(_ changeset: Changeset) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        changeset.appendCompactJSON(to: &out)
        return out
    }

    @inline(__always)
    static func append(_ value: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }
}

extension Changeset {
    /// ``jsonValue`` as compact JSON bytes.
    func appendCompactJSON(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"stages":["#.utf8)
        for (s, stage) in stages.enumerated() {
            if s > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            if !stage.sections.isEmpty {
                out.append(contentsOf: #""sections":"#.utf8)
                stage.sections.appendCompactJSON(to: &out) { Documents.append($0, to: &$1) }
            }
            if !stage.items.isEmpty {
                if !stage.sections.isEmpty { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: #""items":"#.utf8)
                stage.items.appendCompactJSON(to: &out) { path, out in
                    out.append(UInt8(ascii: "["))
                    Documents.append(path.section, to: &out)
                    out.append(UInt8(ascii: ","))
                    Documents.append(path.item, to: &out)
                    out.append(UInt8(ascii: "]"))
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        if let fromRevision {
            out.append(contentsOf: #","fromRevision":"#.utf8)
            Documents.append(fromRevision, to: &out)
        }
        if let toRevision {
            out.append(contentsOf: #","toRevision":"#.utf8)
            Documents.append(toRevision, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension Changes {
    /// ``jsonValue(_:)`` as compact JSON bytes, each index written by `index`.
    func appendCompactJSON(to out: inout [UInt8], _ index: (Index, inout [UInt8]) -> Void) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: #"":["#.utf8)
        }
        func list(_ name: String, _ elements: [Index]) {
            guard !elements.isEmpty else { return }
            key(name)
            for (n, element) in elements.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                index(element, &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        list("deleted", deleted)
        list("inserted", inserted)
        list("reloaded", reloaded)
        if !moved.isEmpty {
            key("moved")
            for (n, move) in moved.enumerated() {
                out.append(contentsOf: n > 0 ? #",["#.utf8 : "[".utf8)
                index(move.from, &out)
                out.append(UInt8(ascii: ","))
                index(move.to, &out)
                out.append(UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
    }
}
