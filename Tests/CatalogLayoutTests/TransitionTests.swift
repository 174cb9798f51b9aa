import CatalogDiff
import CatalogLayout
import CatalogModel
import Testing

/// Update animations: for the one-stage changesets the diff emits between random catalogues,
/// every cell that stays starts at its old frame and ends at its new one, and every cell that
/// comes or goes fades at its own frame (circular: at the centre).
@Suite struct TransitionTests {
    /// A random catalogue of book shelves over a pool of ids, so items cross shelves.
    static func catalog(_ random: inout SplitMix64, pool: Int) -> Catalog {
        var ids = Array(0..<pool).shuffled(using: &random)
        ids = Array(ids.prefix(Int.random(in: 0...pool, using: &random)))
        let sectionIDs = Array(0..<5).shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random))
        var sections = sectionIDs.map { Section(id: "s\($0)", kind: .bookshelf, capacity: nil) }
        for id in ids {
            let title = Bool.random(using: &random) ? "Title \(id)" : "Other \(id)"
            sections[Int.random(in: 0..<sections.count, using: &random)].items
                .append(Item(id: "b\(id)", content: .book(Book(title: title, cover: "c\(id)"))))
        }
        return Catalog(name: "shelf", sections: sections)
    }

    static func paths(_ catalog: Catalog) -> [String: ItemPath] {
        var result: [String: ItemPath] = [:]
        for (s, section) in catalog.sections.enumerated() {
            for (i, item) in section.items.enumerated() { result[item.id] = ItemPath(section: s, item: i) }
        }
        return result
    }

    @Test(arguments: [LayoutStyle.flow, .waterfall, .circular, .shelf, .carousel])
    func oneStageChangesetsAnimateEveryCell(style: LayoutStyle) throws {
        var random = SplitMix64(seed: 42)
        var checked = 0
        let config = LayoutConfiguration(style: style, itemSize: Size(width: 60, height: 90), headerHeight: 20)
        let viewport = Size(width: 320, height: 480)
        for _ in 0..<600 {
            let a = Self.catalog(&random, pool: 30), b = Self.catalog(&random, pool: 30)
            let changeset = try Changeset(from: a, to: b)
            guard changeset.stages.count == 1, let stage = changeset.stages.first else { continue }
            checked += 1
            let before = try Layout(LayoutInput(a), configuration: config, viewportSize: viewport)
            let after = try Layout(LayoutInput(b), configuration: config, viewportSize: viewport)
            let transition = try LayoutTransition(from: before, to: after, stage: stage)
            let oldPaths = Self.paths(a), newPaths = Self.paths(b)
            let itemChanges = b.contentChanges(since: a).items
            let oldSectionIDs = Set(a.sections.map(\.id)), newSectionIDs = Set(b.sections.map(\.id))
            var appearing: [ItemPath] = [], disappearing: [ItemPath] = []

            for (s, section) in b.sections.enumerated() {
                for (i, item) in section.items.enumerated() {
                    let path = ItemPath(section: s, item: i)
                    let initial = try #require(transition.initialAttributes(forAppearingItemAt: path))
                    #expect(initial.indexPath == path)
                    let stays = oldPaths[item.id] != nil && !itemChanges.contains(item.id)
                        && oldSectionIDs.contains(section.id) && stage.sections.reloaded.isEmpty
                    if stays {
                        #expect(initial.frame == before.attributes(forItemAt: oldPaths[item.id]!)!.frame, "\(style) \(item.id)")
                        #expect(initial.alpha == 1)
                    } else {
                        appearing.append(path)
                        #expect(initial.alpha == 0)
                        let own = after.attributes(forItemAt: path)!.frame
                        #expect(initial.frame.size == own.size)
                        #expect(initial.frame == (style == .circular ? Rect(x: 160 - 30, y: 240 - 45, width: 60, height: 90) : own))
                    }
                }
            }
            for (s, section) in a.sections.enumerated() {
                for (i, item) in section.items.enumerated() {
                    let path = ItemPath(section: s, item: i)
                    let final = try #require(transition.finalAttributes(forDisappearingItemAt: path))
                    let stays = newPaths[item.id] != nil && !itemChanges.contains(item.id)
                        && newSectionIDs.contains(section.id) && stage.sections.reloaded.isEmpty
                    #expect(final.alpha == (stays ? 1 : 0), "\(style) \(item.id)")
                    if stays {
                        #expect(final.frame == after.attributes(forItemAt: newPaths[item.id]!)!.frame)
                    } else {
                        disappearing.append(path)
                    }
                }
            }
            #expect(transition.appearingItems == appearing)
            #expect(transition.disappearingItems == disappearing)
        }
        #expect(checked > 50, "only \(checked) one-stage changesets")
    }

    @Test func stagesThatDoNotFitTheLayoutsAreRefused() throws {
        let config = LayoutConfiguration(style: .flow)
        let viewport = Size(width: 320, height: 480)
        let before = try Layout(LayoutInput(itemCounts: [3, 2]), configuration: config, viewportSize: viewport)
        let after = try Layout(LayoutInput(itemCounts: [4, 2]), configuration: config, viewportSize: viewport)
        // One insert fits; none, or an insert out of range, does not.
        let good = Stage(items: ItemChanges(inserted: [ItemPath(section: 0, item: 3)]))
        let transition = try LayoutTransition(from: before, to: after, stage: good)
        #expect(transition.appearingItems == [ItemPath(section: 0, item: 3)])
        #expect(transition.disappearingItems == [])
        #expect(transition.initialAttributes(forAppearingItemAt: ItemPath(section: 0, item: 3))?.alpha == 0)
        #expect(transition.initialAttributes(forAppearingItemAt: ItemPath(section: 5, item: 0)) == nil)
        for bad in [Stage(), Stage(items: ItemChanges(inserted: [ItemPath(section: 0, item: 9)])),
                    Stage(sections: SectionChanges(deleted: [1]))] {
            #expect(throws: LayoutTransitionError.self) { try LayoutTransition(from: before, to: after, stage: bad) }
        }
    }
}
