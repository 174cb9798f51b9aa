/// What turns one catalogue into another at the granularity of sections: the later catalogue's
/// versions of the sections that differ (new ones included) and its section order when that
/// differs. What a follower is sent with each change (`GET …/events?include=sections`), so that
/// it rebuilds the server's catalogue from its own copy without reading the catalogue whole.
public struct SectionPatch: Sendable, Hashable {
    /// The later catalogue's sections that differ from the earlier one's (or that it lacks), in
    /// the later catalogue's order.
    public var sections: [Section]
    /// The later catalogue's section ids in order; nil when they are the earlier one's.
    public var order: [String]?

    public init(sections: [Section], order: [String]?) {
        self.sections = sections
        self.order = order
    }

    /// The patch from `old` to `new`. Sections that share their storage (an observer's
    /// successive catalogues do, for every section a write left alone) compare in constant time.
    public init(from old: Catalog, to new: Catalog) {
        var before: [String: Section] = [:]
        before.reserveCapacity(old.sections.count)
        for section in old.sections { before[section.id] = section }
        sections = new.sections.filter { before[$0.id] != $0 }
        let ids = new.sections.map(\.id)
        order = ids == old.sections.map(\.id) ? nil : ids
    }

    /// Whether the patch changes nothing.
    public var isEmpty: Bool { sections.isEmpty && order == nil }
}

extension Catalog {
    /// The catalogue with `patch` applied: its sections replaced by the patch's versions, in the
    /// patch's order (sections it leaves out are gone), or in the present order when it gives none.
    ///
    /// - Throws: ``SectionPatch/Problem`` when the order names a section that neither this
    ///   catalogue nor the patch holds, names one twice, or the patch holds a section the order
    ///   leaves out.
    public func applying(_ patch: SectionPatch) throws(SectionPatch.Problem) -> Catalog {
        var byID: [String: Section] = [:]
        byID.reserveCapacity(sections.count + patch.sections.count)
        for section in sections { byID[section.id] = section }
        var patched = Set<String>()
        for section in patch.sections {
            guard patched.insert(section.id).inserted else { throw .sectionTwice(section.id) }
            byID[section.id] = section
        }
        let order = patch.order ?? sections.map(\.id)
        var seen = Set<String>()
        var result = self
        result.sections = []
        result.sections.reserveCapacity(order.count)
        for id in order {
            guard seen.insert(id).inserted else { throw .sectionTwice(id) }
            guard let section = byID[id] else { throw .unknownSection(id) }
            result.sections.append(section)
        }
        if let stray = patch.sections.first(where: { !seen.contains($0.id) }) { throw .sectionLeftOut(stray.id) }
        return result
    }
}

extension SectionPatch {
    /// Why a patch does not apply to a catalogue: it was made from another one.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case unknownSection(String)
        case sectionTwice(String)
        case sectionLeftOut(String)

        public var description: String {
            switch self {
            case .unknownSection(let id): "the section order names \"\(id)\", which neither the catalogue nor the patch holds"
            case .sectionTwice(let id): "the section \"\(id)\" appears twice in the patch"
            case .sectionLeftOut(let id): "the patch holds the section \"\(id)\" but its order leaves it out"
            }
        }
    }
}
