import CatalogDiff
import CatalogModel
import CatalogTestSupport
import CatalogViews
import Testing

/// Random catalogues, views and writes: after every write the view kept live equals the view
/// evaluated from scratch, and its changeset, replayed on the view before, gives it.
@Suite struct LiveViewPropertyTests {
    struct Generator {
        var random: RandomEdits
        var next = 0

        init(seed: UInt64) { random = RandomEdits(seed: seed) }

        mutating func int(_ range: ClosedRange<Int>) -> Int { random.int(range) }
        mutating func chance(_ percent: Int) -> Bool { random.chance(percent) }
        mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

        static let titles = ["Cats", "cats", "Café", "Dogs", "猫和纸箱", "", "Zebra"]

        mutating func item(_ kind: ItemKind) -> Item {
            next += 1
            let id = "i\(next)"
            switch kind {
            case .video:
                return Item(id: id, content: .video(Video(title: pick(Self.titles), cover: id, playCount: int(0...3), likeCount: int(0...1),
                                                          status: pick(VideoStatus.allCases), statusText: chance(50) ? nil : pick(["ok", "late"]))),
                            size: chance(20) ? nil : Size(width: Double(int(1...3)) * 50, height: 90))
            case .book:
                return Item(id: id, content: .book(Book(title: pick(Self.titles), cover: id, author: chance(40) ? nil : pick(["Tolstoy", "Austen"]))))
            case .icon:
                return Item(id: id, content: .icon(Icon(name: pick(Self.titles), icon: id)))
            }
        }

        mutating func section(_ k: Int) -> Section {
            let kind: SectionKind = chance(75) ? .videos : pick([.bookshelf, .icons])
            return Section(id: "s\(k)", kind: kind, title: "S\(k)", capacity: nil,
                           items: (0..<int(0...6)).map { _ in item(kind.itemKind) })
        }

        mutating func catalog() -> Catalog {
            Catalog(name: "c", revision: 1, sections: (0..<int(1...4)).map { section($0) })
        }

        mutating func definition() -> ViewDefinition {
            let filters: [String?] = [nil, nil, "playCount >= 2", #"status in ["published", "recommended"]"#,
                                      #"title contains "ca" or not (statusText = "ok")"#, #"kind = "video" and playCount != 1"#,
                                      "statusText = null", #"section != "s1""#, "width > 50"]
            let sorts: [String?] = [nil, nil, "-playCount,title", "title", "statusText", "-width,-likeCount", "kind,-id"]
            let groups: [String?] = [nil, nil, "section", "none", "status", "-playCount", "statusText", "title", "kind"]
            let limit: String? = chance(35) ? String(int(0...6)) : nil
            let offset: String? = chance(25) ? String(int(0...4)) : nil
            return try! ViewDefinition(where: pick(filters), sort: pick(sorts), group: pick(groups), limit: limit, offset: offset)
        }

        /// The catalogue after a random batch of writes of every kind.
        mutating func write(_ a: Catalog) -> Catalog {
            var b = a
            b.revision += 1
            for _ in 0..<int(1...(chance(20) ? 12 : 3)) {
                let s = int(0...b.sections.count - 1)
                switch int(0...9) {
                case 0...2 where !b.sections[s].items.isEmpty:   // a content change
                    let i = int(0...b.sections[s].items.count - 1)
                    var item = b.sections[s].items[i]
                    switch item.content {
                    case .video(var video):
                        switch int(0...3) {
                        case 0: video.playCount = int(0...3)
                        case 1: video.title = pick(Self.titles)
                        case 2: video.status = pick(VideoStatus.allCases)
                        default: video.statusText = chance(50) ? nil : pick(["ok", "late"])
                        }
                        item.content = .video(video)
                    case .book(var book):
                        if chance(50) { book.author = chance(50) ? nil : "Austen" } else { book.title = pick(Self.titles) }
                        item.content = .book(book)
                    case .icon(var icon):
                        icon.name = pick(Self.titles)
                        item.content = .icon(icon)
                    }
                    if chance(20) { item.size = Size(width: Double(int(1...3)) * 50, height: 90) }
                    b.sections[s].items[i] = item
                case 3 where !b.sections[s].items.isEmpty:   // a move, within or across sections
                    let item = b.sections[s].items.remove(at: int(0...b.sections[s].items.count - 1))
                    let targets = b.sections.indices.filter { b.sections[$0].kind.itemKind == item.kind }
                    let t = pick(targets)
                    b.sections[t].items.insert(item, at: int(0...b.sections[t].items.count))
                case 4:
                    b.sections[s].items.insert(item(b.sections[s].kind.itemKind), at: int(0...b.sections[s].items.count))
                case 5 where !b.sections[s].items.isEmpty:
                    b.sections[s].items.remove(at: int(0...b.sections[s].items.count - 1))
                case 6:
                    if chance(50), b.sections.count > 1 {
                        b.sections.remove(at: s)
                    } else {
                        next += 1
                        b.sections.insert(section(next + 100), at: int(0...b.sections.count))
                    }
                case 7 where b.sections.count > 1:
                    let section = b.sections.remove(at: s)
                    b.sections.insert(section, at: int(0...b.sections.count))
                case 8:
                    b.sections[s].title = "T\(int(0...3))"
                default:
                    // Replace a run of items by new ones (a bulk edit).
                    let kind = b.sections[s].kind.itemKind
                    b.sections[s].items = b.sections[s].items.filter { _ in chance(60) } + (0..<int(0...3)).map { _ in item(kind) }
                }
            }
            return b
        }
    }

    static func update(from a: Catalog, to b: Catalog) throws -> CatalogUpdate {
        var changeset = try Changeset(from: a, to: b)
        changeset.fromRevision = a.revision
        changeset.toRevision = b.revision
        var update = CatalogUpdate(revision: b.revision, catalog: b, changeset: changeset, stages: changeset.stagedCatalogs(from: a, to: b))
        update.previous = a
        return update
    }

    @Test func theKeptViewIsTheViewFromScratch() throws {
        var applied = 0, refused = 0
        for seed in 0..<400 as Range<UInt64> {
            var generator = Generator(seed: seed)
            var catalog = generator.catalog()
            let definition = generator.definition()
            var live = try? LiveView(definition, of: catalog)
            for _ in 0..<10 {
                let next = generator.write(catalog)
                let update = try Self.update(from: catalog, to: next)
                let expected = Result { () throws(ViewError) in try definition.evaluate(on: next) }
                if var view = live {
                    let before = view.result.catalog
                    do {
                        let answer = try view.apply(update)
                        view.checkInvariants()
                        let result = try expected.get()
                        #expect(view.result == result, "seed \(seed), \(definition.parameters)")
                        #expect(answer.catalog == result.catalog)
                        let changeset = try #require(answer.changeset, "a write answered by a reset")
                        let violations = changeset.violations(from: before, to: result.catalog)
                        #expect(violations.isEmpty, "seed \(seed): \(violations)")
                        #expect(answer.stages == changeset.stagedCatalogs(from: before, to: result.catalog))
                        // The fewest moves: no more than the diff of the two views finds.
                        let diff = try Changeset(from: before, to: result.catalog)
                        func moves(_ c: Changeset) -> Int { c.stages.reduce(0) { $0 + $1.items.moved.count } }
                        #expect(moves(changeset) <= moves(diff), "seed \(seed): \(changeset) against \(diff)")
                        applied += 1
                    } catch {
                        #expect(throws: ViewError.self) { try expected.get() }
                        #expect(view.result.catalog == before, "a refused write changed the view")
                        refused += 1
                    }
                    live = view
                } else {
                    live = try? LiveView(definition, of: next)
                }
                catalog = next
                if live == nil || (live!.source != catalog) { live = try? LiveView(definition, of: catalog) }
            }
        }
        #expect(applied > 2_500)
        #expect(refused > 0)
    }
}
