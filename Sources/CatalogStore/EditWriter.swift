import CatalogModel
import GRDB

/// Writes an edit (what a ``CatalogEditor`` changed) back to the database, row by row, inside
/// the caller's transaction: only the rows of the sections the edit touched.
///
/// Positions are UNIQUE per section (items) and per catalogue (sections), so rows that change
/// place first park at distinct negative positions, then take their final ones; new rows are
/// inserted once every slot is final. SQLite's triggers still check kinds and capacities.
struct EditWriter {
    let db: Database
    let source: DatabaseCatalogSource
    let editor: CatalogEditor<DatabaseCatalogSource>
    /// Distinct negative positions for rows in transit.
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
        var occupied: [Slot: Int64] = [:]
        for (sectionID, entry) in editor.originals {
            guard let sectionPK = sectionPKs[sectionID] else { continue }
            for (position, item) in entry.section.items.enumerated() {
                occupied[Slot(section: sectionPK, position: position)] = source.itemPKs[item.id]
            }
        }
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
            occupied[Slot(section: sectionPKs[old.section]!, position: old.position)] = nil
        }
        try relocate(relocations, occupied: occupied)
        let deleteSection = try db.cachedStatement(sql: "DELETE FROM section WHERE pk = ?")
        for id in editor.deleted {
            try deleteSection.execute(arguments: [sectionPKs[id]!])
        }

        // New rows into the slots left free, then new content.
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
    struct Slot: Hashable {
        var section: Int64
        var position: Int
    }

    /// An item row that changes place.
    struct Relocation {
        var pk: Int64
        var from: Slot
        var to: Slot
    }

    /// Moves every row to its new place with as few updates as the UNIQUE (section, position)
    /// index allows: a row goes straight to its slot once that slot is free — so a shelf that
    /// shifts by one costs one update per book — and only rows caught in a cycle (a swap) park
    /// at a negative position first. Rows that stay in their section do not touch `section_pk`,
    /// so SQLite checks the foreign key only for rows that change section.
    private mutating func relocate(_ relocations: [Relocation], occupied: [Slot: Int64]) throws {
        guard !relocations.isEmpty else { return }
        var occupied = occupied
        // Runs — three or more rows of one section shifting by the same amount, such as a shelf's
        // books after an insert — move with two set-based UPDATEs instead of one per row: out of
        // the way to positions below `runBase` first, to their final positions last.
        let runs = Self.runs(in: relocations)
        let runBase: Int64 = -(1 << 40)
        let runOut = try db.cachedStatement(sql: """
            UPDATE item SET position = ? - (position + ?) WHERE section_pk = ? AND position BETWEEN ? AND ?
            """)
        var inRun = Set<Int64>()
        for run in runs {
            try runOut.execute(arguments: [runBase, run.delta, run.section, run.first, run.last])
            for position in run.first...run.last {
                if let pk = occupied.removeValue(forKey: Slot(section: run.section, position: position)) { inRun.insert(pk) }
            }
        }
        try schedule(relocations.filter { !inRun.contains($0.pk) }, occupied: occupied)
        let runIn = try db.cachedStatement(sql: "UPDATE item SET position = ? - position WHERE section_pk = ? AND position <= ?")
        for section in Set(runs.map(\.section)) {
            try runIn.execute(arguments: [runBase, section, runBase])
        }
    }

    /// A run of rows in one section, at positions `first...last`, all moving by `delta`.
    struct Run {
        var section: Int64
        var first: Int
        var last: Int
        var delta: Int
    }

    /// Maximal runs of at least three same-section relocations with equal shifts and
    /// consecutive old positions.
    static func runs(in relocations: [Relocation]) -> [Run] {
        var bySection: [Int64: [(position: Int, delta: Int)]] = [:]
        for relocation in relocations where relocation.from.section == relocation.to.section {
            bySection[relocation.from.section, default: []].append((relocation.from.position, relocation.to.position - relocation.from.position))
        }
        var runs: [Run] = []
        for (section, moves) in bySection {
            let sorted = moves.sorted { $0.position < $1.position }
            var start = 0
            while start < sorted.count {
                var end = start + 1
                while end < sorted.count, sorted[end].position == sorted[end - 1].position + 1, sorted[end].delta == sorted[start].delta {
                    end += 1
                }
                if end - start >= 3 {
                    runs.append(Run(section: section, first: sorted[start].position, last: sorted[end - 1].position, delta: sorted[start].delta))
                }
                start = end
            }
        }
        return runs
    }

    /// Moves single rows, each straight to its slot once it is free, parking rows on cycles.
    private mutating func schedule(_ relocations: [Relocation], occupied: [Slot: Int64]) throws {
        guard !relocations.isEmpty else { return }
        let setPosition = try db.cachedStatement(sql: "UPDATE item SET position = ? WHERE pk = ?")
        let setPlace = try db.cachedStatement(sql: "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
        var occupied = occupied
        var current = relocations          // where each row is now (from), and where it goes (to)
        var waiting: [Slot: [Int]] = [:]   // rows waiting for a slot to free
        var ready: [Int] = []
        for (index, relocation) in relocations.enumerated() {
            if occupied[relocation.to] == nil { ready.append(index) } else { waiting[relocation.to, default: []].append(index) }
        }
        var done = 0
        var indexOfRow: [Int64: Int] = [:]
        for (index, relocation) in relocations.enumerated() { indexOfRow[relocation.pk] = index }
        func put(_ index: Int, at slot: Slot) throws {
            let row = current[index]
            if slot.section == row.from.section {
                try setPosition.execute(arguments: [slot.position, row.pk])
            } else {
                try setPlace.execute(arguments: [slot.section, slot.position, row.pk])
            }
            occupied[row.from] = nil
            occupied[slot] = row.pk
            if let waiters = waiting.removeValue(forKey: row.from) { ready += waiters }
            current[index].from = slot
        }
        while done < relocations.count {
            if let index = ready.popLast() {
                if occupied[current[index].to] != nil {
                    waiting[current[index].to, default: []].append(index)   // taken again meanwhile
                    continue
                }
                try put(index, at: current[index].to)
                done += 1
                continue
            }
            // Every row left waits for a slot another waiting row holds. Follow the chain from any
            // of them to a row on a cycle and park it: that frees a slot the cycle is waiting for.
            var index = relocations.indices.first { current[$0].from != current[$0].to }!
            var seen = Set<Int>()
            while seen.insert(index).inserted {
                guard let blocker = occupied[current[index].to], let next = indexOfRow[blocker] else {
                    throw StoreError.database("cannot place item rows: slot \(current[index].to) is held by a row that does not move")
                }
                index = next
            }
            try put(index, at: Slot(section: current[index].to.section, position: Int(parking)))
            parking -= 1
            waiting[current[index].to, default: []].append(index)
        }
    }

    /// Checks that the sections the edit touched hold items at 0..<count, and that the section
    /// order is 0..<n when it changed: the rest of the catalogue was not written.
    func verifyContiguousPositions(of changed: [String]) throws {
        let check = try db.cachedStatement(sql: """
            SELECT count(*) = 0 OR (min(position) = 0 AND max(position) = count(*) - 1) FROM item WHERE section_pk = ?
            """)
        for id in changed {
            guard let pk = try sectionPK(id) else { continue }
            if try Bool.fetchOne(check, arguments: [pk]) != true {
                throw StoreError.positionsNotContiguous(catalog: source.name, section: id)
            }
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
