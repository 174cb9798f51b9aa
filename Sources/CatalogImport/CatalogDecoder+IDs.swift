import CatalogModel

/// Ids for the sections and items a file leaves without one, derived deterministically.
extension CatalogDecoder {
    /// Gives every section and item without an explicit id a deterministic one: sections `s1`, `s2`…
    /// by position; items their natural key (cover or icon), with `~2`, `~3`… for later
    /// occurrences. Ids the file uses explicitly are skipped, so derived ids never collide.
    /// Gives each section the file left without an id `s` and its position from 1 (the next free
    /// number when the file uses that id itself).
    func deriveSectionIDs(in sections: inout [Section]) {
        var takenSectionIDs = Set(explicitSectionIDs.keys)
        for s in sectionsNeedingIDs {
            var n = s + 1
            while takenSectionIDs.contains("s\(n)") { n += 1 }
            sections[s].id = "s\(n)"
            takenSectionIDs.insert(sections[s].id)
        }
    }

    /// Gives each item the file left without an id one from its natural key (cover, icon), with an
    /// occurrence suffix for repeats.
    func deriveItemIDs(in sections: inout [Section]) throws(ImportError) -> (derived: Int, duplicates: Int) {
        guard !itemsNeedingIDs.isEmpty else { return (0, 0) }
        // Explicit ids and those derived so far: a cover literally named "x~2" must not collide
        // with the second "x".
        var takenItemIDs = Set(explicitItemIDs.keys)
        takenItemIDs.reserveCapacity(explicitItemIDs.count + itemsNeedingIDs.count)
        var occurrences: [String: Int] = [:]
        var duplicates = 0
        for location in itemsNeedingIDs {
            let (s, i) = (location.section, location.item ?? 0)
            let key = sections[s].items[i].content.naturalKey
            if key.isEmpty {
                let field = sections[s].kind == .icons ? "icon" : "cover"
                throw error(location.path(), .invalidValue(expected: "an id, or a non-empty \(field) to derive one from", found: "neither"))
            }
            var occurrence = occurrences[key, default: 0] + 1
            if occurrence > 1 { duplicates += 1 }
            var candidate = occurrence == 1 ? key : "\(key)~\(occurrence)"
            while takenItemIDs.contains(candidate) {
                occurrence += 1
                candidate = "\(key)~\(occurrence)"
            }
            occurrences[key] = occurrence
            takenItemIDs.insert(candidate)
            sections[s].items[i].id = candidate
        }
        return (itemsNeedingIDs.count, duplicates)
    }
}
