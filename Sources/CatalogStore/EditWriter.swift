import CatalogModel
import GRDB

/// Writes an edit (what a ``CatalogEditor`` changed) back to the database, row by row, inside
/// the caller's transaction: only the rows of the sections the edit touched.
///
/// Section positions are UNIQUE per catalogue, so sections that change place first park at
/// distinct negative positions, then take their final ones. Item positions have a plain index
/// (migration 0004): rows that shift inside a section move with one set-based UPDATE per section,
/// rows that change section one by one (SQLite's triggers check their kind and capacity), and
/// ``verifyPositions(of:)`` proves the result before the commit.
struct EditWriter {
    let db: Database
    let source: DatabaseCatalogSource
    let editor: CatalogEditor<DatabaseCatalogSource>
    /// Distinct negative positions for section rows in transit (section positions are UNIQUE).
    private var parking: Int64 = -1

    init(db: Database, editor: CatalogEditor<DatabaseCatalogSource>) {
        self.db = db
        self.editor = editor
        source = editor.source
    }

    mutating func write() throws {
        let catalogPK = source.catalogPK
        var sectionPKs = source.sectionPKs

        // Sections: those that change place park; new ones are inserted parked.
        var sectionFinal: [(pk: Int64, position: Int)] = []
        if let order = editor.order, let before = editor.orderBefore {
            var oldPosition: [String: Int] = [:]
            for (position, id) in before.enumerated() { oldPosition[id] = position }
            let moveSection = try db.cachedStatement(sql: "UPDATE section SET position = ? WHERE pk = ?")
            let idOf = try db.cachedStatement(sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?")
            for (position, id) in order.enumerated() {
                if editor.inserted.contains(id) {
                    let section = editor.sections[id]!
                    try db.execute(sql: """
                        INSERT INTO section (catalog_pk, id, position, kind, title, capacity) VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [catalogPK, id, parking, section.kind.rawValue, section.title, section.capacity])
                    parking -= 1
                    sectionPKs[id] = db.lastInsertedRowID
                    sectionFinal.append((db.lastInsertedRowID, position))
                } else if oldPosition[id] != position {
                    let pk: Int64
                    if let known = sectionPKs[id] {
                        pk = known
                    } else {
                        pk = try Int64.fetchOne(idOf, arguments: [catalogPK, id])!
                        sectionPKs[id] = pk
                    }
                    try moveSection.execute(arguments: [parking, pk])
                    parking -= 1
                    sectionFinal.append((pk, position))
                }
            }
        }

        // Items: where each one was, and where it is now.
        var oldPlace: [String: (section: String, position: Int)] = [:]
        for (id, entry) in editor.originals {
            for (position, item) in entry.section.items.enumerated() { oldPlace[item.id] = (id, position) }
        }
        var relocations: [Relocation] = []
        var newItems: [(item: Item, section: Int64, position: Int)] = []
        var updatedItems: [(pk: Int64, item: Item)] = []
        var present = Set<String>()
        for (sectionID, section) in editor.sections {
            let sectionPK = sectionPKs[sectionID]!
            for (position, item) in section.items.enumerated() {
                present.insert(item.id)
                guard let pk = source.itemPKs[item.id], let old = oldPlace[item.id] else {
                    newItems.append((item, sectionPK, position))
                    continue
                }
                if old.section != sectionID || old.position != position {
                    relocations.append(Relocation(pk: pk, from: Slot(section: sectionPKs[old.section]!, position: old.position),
                                                  to: Slot(section: sectionPK, position: position)))
                }
                let previous = editor.originals[old.section]!.section.items[old.position]
                if !previous.hasSameContent(as: item) { updatedItems.append((pk, item)) }
            }
        }
        // Items that are nowhere now: deleted (those of deleted sections go with their section).
        let deleteItem = try db.cachedStatement(sql: "DELETE FROM item WHERE pk = ?")
        for (id, old) in oldPlace where !present.contains(id) && !editor.deleted.contains(old.section) {
            try deleteItem.execute(arguments: [source.itemPKs[id]!])
        }
        try relocate(relocations)
        let deleteSection = try db.cachedStatement(sql: "DELETE FROM section WHERE pk = ?")
        for id in editor.deleted {
            try deleteSection.execute(arguments: [sectionPKs[id]!])
        }

        // New rows last: the shifts above select rows by position and must not catch them. Then
        // new content.
        let inserter = try ItemInserter(db: db)
        for (item, sectionPK, position) in newItems {
            try inserter.insert(item, catalogPK: catalogPK, sectionPK: sectionPK, position: position)
        }
        let update = try db.cachedStatement(sql: """
            UPDATE item SET title = ?, cover = ?, play_count = ?, like_count = ?, status = ?, status_text = ?,
                            author = ?, name = ?, icon = ?, width = ?, height = ? WHERE pk = ?
            """)
        for (pk, item) in updatedItems {
            var values: [(any DatabaseValueConvertible)?] = Array(repeating: nil, count: 9)
            switch item.content {
            case .video(let v): values = [v.title, v.cover, v.playCount, v.likeCount, v.status.rawValue, v.statusText, nil, nil, nil]
            case .book(let b): values = [b.title, b.cover, nil, nil, nil, nil, b.author, nil, nil]
            case .icon(let i): values = [nil, nil, nil, nil, nil, nil, nil, i.name, i.icon]
            }
            values += [item.size?.width, item.size?.height, pk]
            try update.execute(arguments: StatementArguments(values))
        }
        let placeSection = try db.cachedStatement(sql: "UPDATE section SET position = ? WHERE pk = ?")
        for (pk, position) in sectionFinal { try placeSection.execute(arguments: [position, pk]) }
        let updateSection = try db.cachedStatement(sql: "UPDATE section SET title = ?, capacity = ? WHERE pk = ?")
        for (id, section) in editor.sections where !editor.inserted.contains(id) {
            let original = editor.originals[id]!.section
            if original.title != section.title || original.capacity != section.capacity {
                try updateSection.execute(arguments: [section.title, section.capacity, sectionPKs[id]!])
            }
        }
    }

    /// A place for an item: a section's row key and a position in it.
    struct Slot {
        var section: Int64
        var position: Int
    }

    /// An item row that changes place.
    struct Relocation {
        var pk: Int64
        var from: Slot
        var to: Slot
    }

    /// Moves every row to its new place. Rows that stay in their section shift in runs (rows at
    /// consecutive positions moving by the same amount, such as a shelf's books after the one
    /// that left), all runs of a section in one UPDATE: SQLite evaluates it with each row's old
    /// position, so a row shifted into another run's old range is not caught twice — which is
    /// also why these statements run before any row enters the section. Rows that change section
    /// follow, by key; they are the only ones that touch `section_pk`, so SQLite checks the
    /// foreign key and the triggers for them alone.
    private func relocate(_ relocations: [Relocation]) throws {
        guard !relocations.isEmpty else { return }
        var staying: [Int64: [Relocation]] = [:]
        var crossing: [Relocation] = []
        for relocation in relocations {
            if relocation.from.section == relocation.to.section {
                staying[relocation.from.section, default: []].append(relocation)
            } else {
                crossing.append(relocation)
            }
        }
        for (section, moves) in staying {
            let runs = Self.runs(in: moves)
            if runs.count <= Self.runsPerStatement {
                try shift(section, runs)
            } else {
                // Too many runs for one statement's parameters: row by row, by key.
                let setPosition = try db.cachedStatement(sql: "UPDATE item SET position = ? WHERE pk = ?")
                for move in moves { try setPosition.execute(arguments: [move.to.position, move.pk]) }
            }
        }
        let setPlace = try db.cachedStatement(sql: "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
        for move in crossing { try setPlace.execute(arguments: [move.to.section, move.to.position, move.pk]) }
    }

    /// The most runs one shifting statement carries (five parameters each, far below SQLite's
    /// limit of 32,766).
    static let runsPerStatement = 1_000

    /// A run of rows in one section, at positions `first...last`, all moving by `delta`.
    struct Run {
        var first: Int
        var last: Int
        var delta: Int
    }

    /// The maximal runs of `moves` (all in one section): consecutive old positions, equal shifts.
    static func runs(in moves: [Relocation]) -> [Run] {
        let sorted = moves.sorted { $0.from.position < $1.from.position }
        var runs: [Run] = []
        for move in sorted {
            let delta = move.to.position - move.from.position
            if let last = runs.last, last.last + 1 == move.from.position, last.delta == delta {
                runs[runs.count - 1].last = move.from.position
            } else {
                runs.append(Run(first: move.from.position, last: move.from.position, delta: delta))
            }
        }
        return runs
    }

    /// Shifts the runs of one section with one UPDATE.
    private func shift(_ section: Int64, _ runs: [Run]) throws {
        var cases = ""
        var ranges: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        for run in runs {
            cases += " WHEN position BETWEEN ? AND ? THEN position + ?"
            arguments += [run.first, run.last, run.delta]
            ranges.append("position BETWEEN ? AND ?")
        }
        arguments.append(section)
        for run in runs { arguments += [run.first, run.last] }
        let sql = "UPDATE item SET position = CASE\(cases) END WHERE section_pk = ? AND (\(ranges.joined(separator: " OR ")))"
        // The usual shapes (one or two runs per section) are prepared once; others each time.
        let statement = runs.count <= 2 ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.execute(arguments: StatementArguments(arguments))
    }

    /// Checks that each section the edit touched holds its items at exactly 0..<count (no gap,
    /// no position twice) and no more than its capacity, and that the section order is 0..<n
    /// when it changed: the rest of the catalogue was not written.
    func verifyPositions(of changed: [String]) throws {
        for id in changed {
            guard let pk = try sectionPK(id) else { continue }
            try CatalogStore.verifyItemPositions(ofSection: pk, id: id, capacity: editor.sections[id]?.capacity,
                                                 catalog: source.name, in: db)
        }
        if editor.order != editor.orderBefore {
            let ok = try Bool.fetchOne(db, sql: """
                SELECT count(*) = 0 OR (min(position) = 0 AND max(position) = count(*) - 1) FROM section WHERE catalog_pk = ?
                """, arguments: [source.catalogPK]) ?? true
            if !ok { throw StoreError.positionsNotContiguous(catalog: source.name, section: "(section order)") }
        }
    }

    private func sectionPK(_ id: String) throws -> Int64? {
        if let pk = source.sectionPKs[id] { return pk }
        return try Int64.fetchOne(db, sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?", arguments: [source.catalogPK, id])
    }
}
