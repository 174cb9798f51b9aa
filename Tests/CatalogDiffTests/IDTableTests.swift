import CatalogModel
import Testing
@testable import CatalogDiff

/// The diff's building blocks against slow, obvious versions of themselves.
@Suite("Diff building blocks")
struct IDTableTests {
    /// O(n²) longest strictly increasing subsequence length.
    static func slowLength(_ values: [Int]) -> Int {
        var best = [Int](repeating: 1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) }
        }
        return best.max() ?? 0
    }

    @Test("the longest increasing subsequence is increasing and as long as the slow search finds")
    func longestIncreasingSubsequence() {
        var random = SplitMix64(seed: 41)
        var finder = LongestIncreasingSubsequence()
        for round in 0..<2_000 {
            let n = Int(random.next() % 60)
            var values: [Int]
            switch round % 4 {
            case 0: values = (0..<n).map { _ in Int(random.next() % 20) }  // repeats
            case 1: values = Array(0..<n).shuffled(using: &random)
            case 2:  // mostly sorted, as in a diff: a few values moved far away
                values = Array(0..<n)
                for _ in 0..<min(n, 3) { values.swapAt(Int(random.next() % UInt64(n)), Int(random.next() % UInt64(n))) }
            default: values = Array((0..<n).reversed())
            }
            // The same finder, reused across calls with shorter and longer inputs.
            var scratch = values.map { Int32($0) }
            scratch.withUnsafeMutableBufferPointer { finder.find(in: $0) }
            let off = finder.off.map { Int($0) }
            #expect(off == off.sorted() && Set(off).count == off.count && off.allSatisfy(values.indices.contains),
                    "the indices off the subsequence, ascending, each once: \(off)")
            let kept = values.indices.filter { !off.contains($0) }.map { values[$0] }
            #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 }, "\(values)")
            #expect(kept.count == Self.slowLength(values), "\(values)")
        }
    }

    @Test("the table matches ids, finds repeats on either side and survives growing", arguments: [false, true])
    func matching(strings: Bool) {
        var random = SplitMix64(seed: 7)
        for round in 0..<300 {
            // Small pools force repeats; B mostly new ids forces the table to grow. Sections of
            // five ids or of a hundred: entering A's ids hashes some ahead of the one it enters,
            // which a short section ends before.
            let sectionSize = round % 2 == 0 ? 5 : 100
            let pool = UInt64(1 + random.next() % 400)
            let a = (0..<Int(random.next() % 300)).map { _ in Int(random.next() % pool) }
            let b = (0..<Int(random.next() % 600)).map { _ in Int(random.next() % (pool * 3)) }
            if strings {
                check(a.map { "id-\($0)" }, b.map { "id-\($0)" }, sectionSize: sectionSize)
            } else {
                check(a, b, sectionSize: sectionSize)
            }
        }
        // Non-ASCII string ids: the fast hash gives up and the standard one takes over, with
        // canonically equivalent ids matched ("K" and the Kelvin sign).
        check(["K", "é", "a"], ["\u{212A}", "e\u{301}", "b"])
    }

    /// The table's answers for `a` and `b`: repeated A positions, each B id's A position (or −1),
    /// repeated B positions of ids A does not have. Nil when the hash gave up.
    /// With `choosing`, the table the diff would choose (dense for integer ids in a narrow range).
    func match<ID: Hashable>(_ a: [ID], _ b: [ID], hash: IDHash, choosing: Bool = false,
                             sectionSize: Int = 5) -> (repeatedA: [Int], bToA: [Int], repeatedB: [Int])? {
        // Split into sections of up to `sectionSize` ids, so that positions cross section boundaries.
        var (a, b) = (ItemIDs(Self.chunked(a, by: sectionSize)), ItemIDs(Self.chunked(b, by: sectionSize)))
        let table = choosing ? IDTable.forIDs(&a, &b, hash: hash, workspace: nil) : .hashed(HashedIDTable(aCount: a.count, bCount: b.count, hash: hash))
        guard let repeatedA = table.enter(a) else { return nil }
        var answers = Answers(count: b.count)
        guard table.lookUp(b, in: a, into: &answers) else { return nil }
        // Each B position's A position, −1 for an id A does not have (−2 if never reported).
        let bToA = answers.matched.indices.map { answers.unmatched[$0] == -2 ? answers.matched[$0] : -1 }
        let repeatedB = answers.unmatched.indices.filter { answers.unmatched[$0] >= 0 }
        #expect(answers.unmatchedOrder == answers.unmatchedOrder.sorted(), "ids A does not have are reported in B's order")
        for q in 0..<b.count where bToA[q] >= 0 { #expect(table.position(of: b[q], in: a, b) == bToA[q]) }
        return (repeatedA, bToA, repeatedB)
    }

    @Test("looking ids up in the order A has them answers as probing every id does", arguments: [false, true])
    func expectingOrder(strings: Bool) {
        var random = SplitMix64(seed: 23)
        for round in 0..<400 {
            // A spread out (so that the table hashes); B is A edited: ids deleted, inserted (some
            // repeated), moved near and far, runs dropped.
            var a = (0..<Int(random.next() % (round % 4 == 1 ? 1_200 : 200))).map { $0 &* -0x61C8_8646_80B5_83EB }
            // Some rounds A repeats ids, which B copies in place: the table then probes for every
            // id, expecting order or not (in order, B's second copy would match A's second).
            if round % 6 == 3, !a.isEmpty {
                for _ in 0..<3 { a.insert(a[Int(random.next() % UInt64(a.count))], at: Int(random.next() % UInt64(a.count + 1))) }
            }
            let n = a.count
            var b: [Int] = []
            var p = 0
            while p < n {
                switch random.next() % 12 {
                case 0: p += 1  // deleted
                case 1: p += 1 + Int(random.next() % 8)  // a run deleted
                case 2: b.append(Int(random.next() % 50) + 1)  // new, maybe repeated
                case 3: b.append(a[Int(random.next() % UInt64(n))])  // moved from anywhere (maybe a repeat)
                default: b.append(a[p]); p += 1
                }
            }
            if round % 5 == 0 { b.append(contentsOf: (0..<Int(random.next() % 300)).map { Int($0) + 1_000 }) }  // grows the table
            // Out of order: B shuffled, wholly or up to a point and in order after it (the lookup
            // gives up comparing for a stretch, then takes it up again).
            if round % 4 == 1 {
                let cut = round % 8 == 1 ? b.count : Int(random.next() % UInt64(b.count + 1))
                b[..<cut].shuffle(using: &random)
            }
            let sectionsA = Self.randomSections(a, &random)
            let sectionsB = Self.randomSections(b, &random)
            if strings {
                compareOrdered(sectionsA.map { $0.map { "id-\($0)" } }, sectionsB.map { $0.map { "id-\($0)" } })
            } else {
                compareOrdered(sectionsA, sectionsB)
            }
        }
        // The ASCII hash gives up on a non-ASCII id either way.
        #expect(lookedUp([["a", "b"]], [["a", "\u{212A}"]], expectingOrder: true) == nil)
        #expect(lookedUp([["a", "b"]], [["a", "\u{212A}"]], expectingOrder: false) == nil)
    }

    @Test("entering integer ids: an id whose probe meets another id's tag is entered after it, not taken for a repeat")
    func integerTagCollisions() throws {
        let hash = IDHash(kind: .integer, seed: 0x0123_4567_89AB_CDEF)
        // Four A positions and room for 2¹⁶ more ids: a 17-bit index, so a 15-bit tag (the hash's
        // bits 49–63) and 2¹⁷ slots (bits 0–16). Two ids agreeing in those 32 bits start their
        // probes at the same slot with the same tag; among 200,000 ids such pairs exist.
        let (aCount, bCount) = (4, 1 << 16)
        #expect(HashedIDTable.slotCount(aCount: aCount, bCount: bCount) == 1 << 17)
        var seen: [UInt64: Int] = [:]
        var pair: (Int, Int)?
        for id in 1...200_000 {
            let h = UInt64(bitPattern: Int64(try #require(hash(id))))
            let key = h & 0x1_FFFF | (h >> 49) << 17
            if let other = seen[key] { pair = (other, id); break }
            seen[key] = id
        }
        let (x, y) = try #require(pair, "no two ids share a slot and a tag")
        // Sections of one id, of two and of four: the pipelined loop and the ids after it.
        for sections in [[[x], [y], [7], [x]], [[x, y], [7, x]], [[x, y, 7, x]]] {
            let a = ItemIDs(sections)
            let table = HashedIDTable(aCount: aCount, bCount: bCount, hash: hash)
            #expect(table.enter(a) == [3], "only the second x repeats an id")
            let b = ItemIDs([[y, 7, x, 99]])
            #expect([y, 7, x, 99].map { table.position(of: $0, in: a, b) } == [1, 2, 0, -1])
        }
    }

    /// `ids` cut into sections of random sizes, empty ones included.
    static func randomSections<ID>(_ ids: [ID], _ random: inout SplitMix64) -> [[ID]] {
        var sections: [[ID]] = []
        var start = 0
        while start < ids.count || sections.isEmpty {
            let count = min(ids.count - start, Int(random.next() % 40))
            sections.append(Array(ids[start..<start + count]))
            start += count
        }
        return sections
    }

    func compareOrdered<ID: Hashable>(_ a: [[ID]], _ b: [[ID]]) {
        let probed = lookedUp(a, b, expectingOrder: false)
        let ordered = lookedUp(a, b, expectingOrder: true)
        #expect(probed != nil && ordered?.matched == probed?.matched && ordered?.unmatched == probed?.unmatched)
        guard let probed else { return }
        let (flatA, flatB) = (Array(a.joined()), Array(b.joined()))
        for q in flatB.indices {
            if let p = flatA.firstIndex(of: flatB[q]) {
                #expect(probed.matched[q] == p && probed.unmatched[q] == -2)
            } else {
                #expect(probed.matched[q] == -2 && probed.unmatched[q] == flatB[..<q].firstIndex(of: flatB[q]) ?? -1)
            }
        }
    }

    /// Each B position's A position (−1 for none, −2 when never reported) and, for ids A does not
    /// have, the earlier B position reported; nil when the hash gave up.
    func lookedUp<ID: Hashable>(_ a: [[ID]], _ b: [[ID]], expectingOrder: Bool) -> (matched: [Int], unmatched: [Int])? {
        var (a, b) = (ItemIDs(a), ItemIDs(b))
        let table = IDTable.forIDs(&a, &b, hash: IDHash.fastest(for: ID.self), workspace: nil)
        guard table.enter(a) != nil else { return nil }
        var answers = Answers(count: b.count)
        guard table.lookUp(b, in: a, expectingOrder: expectingOrder, into: &answers) else { return nil }
        #expect(answers.unmatchedOrder == answers.unmatchedOrder.sorted(), "ids A does not have are reported in B's order")
        let (matched, unmatched) = (answers.matched, answers.unmatched)
        for q in 0..<b.count where matched[q] >= 0 { #expect(table.position(of: b[q], in: a, b) == matched[q]) }
        return (matched, unmatched)
    }

    static func chunked<ID>(_ ids: [ID], by size: Int = 5) -> [[ID]] {
        stride(from: 0, to: ids.count, by: size).map { Array(ids[$0..<min($0 + size, ids.count)]) }
    }

    func check<ID: Hashable>(_ a: [ID], _ b: [ID], sectionSize: Int = 5) {
        var result = match(a, b, hash: IDHash.fastest(for: ID.self), sectionSize: sectionSize)
        if result == nil {
            #expect(ID.self == String.self, "only the ASCII hash gives up")
            result = match(a, b, hash: .standard, sectionSize: sectionSize)
        }
        guard let (repeatedA, bToA, repeatedB) = result else {
            Issue.record("the standard hash never gives up")
            return
        }
        #expect(repeatedA == a.indices.filter { p in a[..<p].contains(a[p]) })
        #expect(bToA == b.map { a.firstIndex(of: $0) ?? -1 })
        #expect(repeatedB == b.indices.filter { q in !a.contains(b[q]) && b[..<q].contains(b[q]) })
        if ID.self == Int.self {
            // The table the diff chooses (dense here: the pools are narrow) answers the same.
            let chosen = match(a, b, hash: IDHash.fastest(for: ID.self), choosing: true, sectionSize: sectionSize)
            #expect(chosen?.repeatedA == repeatedA && chosen?.bToA == bToA && chosen?.repeatedB == repeatedB)
        }
    }

    @Test("the ASCII hash equals its byte-by-byte definition at every length, and gives up on any non-ASCII byte")
    func asciiHash() {
        /// Eight bytes at a time as little-endian words, the rest byte by byte, the length last.
        func slowHash(_ string: String, seed: UInt64) -> Int? {
            let bytes = Array(string.utf8)
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            var (h, offset) = (seed, 0)
            while offset + 8 <= bytes.count {
                let word = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
                h = (h ^ word) &* 0x9E37_79B9_7F4A_7C15
                h = h << 31 | h >> 33
                offset += 8
            }
            let tail = (offset..<bytes.count).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << (8 * UInt64($1 - offset)) }
            return IDHash.mix(h ^ tail ^ UInt64(bytes.count) << 56, seed: seed)
        }
        let seed: UInt64 = 0x0123_4567_89AB_CDEF
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789-")
        for length in 0...40 {
            let ascii = String((0..<length).map { letters[$0 % letters.count] })
            #expect(IDHash.hashASCII(ascii, seed: seed) == slowHash(ascii, seed: seed), "length \(length)")
            // A non-ASCII character first, in the middle or last (where the last word overlaps).
            for position in Set([0, length / 2, length]) {
                var characters = Array(ascii)
                characters.insert("é", at: position)
                #expect(IDHash.hashASCII(String(characters), seed: seed) == nil, "length \(length), é at \(position)")
            }
        }
    }

    @Test("a position's section, found by search or from the index, empty sections included")
    func sectionsOfPositions() {
        var random = SplitMix64(seed: 12)
        for round in 0..<600 {
            // Short sections, or long ones among short and empty ones: the index keeps the section
            // of every 2^k-th position, 2^k up to the average section, so a lookup searches
            // between two indexed positions' sections, across empty sections too.
            let longest = [4, 4, 40, 300][round % 4]
            let sections = (0..<Int(random.next() % 12)).map { _ in
                Array(repeating: 0, count: random.next() % 3 == 0 ? 0 : Int(random.next() % UInt64(longest)))
            }
            let searched = ItemIDs(sections)
            var indexed = searched
            indexed.indexSections()
            if sections.count > 1 {
                let stride = 1 << indexed.indexShift
                #expect(stride <= max(1, indexed.count / sections.count) && indexed.sectionOf.count == (indexed.count + stride - 1) / stride)
            }
            var expected: [Int] = []
            for (s, section) in sections.enumerated() { expected += repeatElement(s, count: section.count) }
            #expect((0..<searched.count).map { searched.section(of: $0) } == expected)
            #expect((0..<indexed.count).map { indexed.section(of: $0) } == expected)
            for p in 0..<searched.count {
                #expect(searched.path(p) == ItemPath(section: expected[p], item: p - searched.starts[expected[p]]))
            }
        }
    }

    @Test("integer ids in a span no wider than a hash table get a dense table; others a hash table")
    func denseChoice() {
        func chosen<ID: Hashable>(_ a: [ID], _ b: [ID]) -> IDTable {
            var (a, b) = (ItemIDs([a]), ItemIDs([b]))
            return IDTable.forIDs(&a, &b, hash: IDHash.fastest(for: ID.self), workspace: nil)
        }
        #expect(chosen(Array(0..<1_000), Array(500..<1_500)).isDense)
        #expect(chosen([-7, -3, 0, 5], [5, -7, 6]).isDense)
        #expect(!chosen([-7, -3, 0, 12], [12, -7, 40]).isDense, "a span of 48 ids, wider than 16 slots")
        #expect(chosen([5], []).isDense)
        // Spread out (a span wider than the hash table would be), or a span that overflows Int.
        #expect(!chosen(Array(0..<1_000).map { $0 << 20 }, []).isDense)
        #expect(!chosen([Int.min, 0], [Int.max]).isDense)
        #expect(!chosen(["a", "b"], ["b"]).isDense)
        #expect(!chosen([Int](), []).isDense)
        // The span is taken a chunk at a time: an id that widens it may come after the first
        // chunk, in the last section, or only in B; narrow ids over many chunks stay dense.
        let many = Array(0..<(3 * IDTable.spanChunk + 5))
        #expect(chosen(many, many.reversed()).isDense)
        #expect(!chosen(many + [1 << 40], many).isDense)
        #expect(!chosen(many, many + [-(1 << 40)]).isDense)
        var sectioned = (ItemIDs([Array(many.prefix(5)), Array(many.dropFirst(5))]), ItemIDs([many, [many.count * 4]]))
        #expect(!IDTable.forIDs(&sectioned.0, &sectioned.1, hash: IDHash.fastest(for: Int.self), workspace: nil).isDense)
        sectioned.1 = ItemIDs([many, [many.count]])
        sectioned.0 = ItemIDs([Array(many.prefix(5)), Array(many.dropFirst(5))])
        #expect(IDTable.forIDs(&sectioned.0, &sectioned.1, hash: IDHash.fastest(for: Int.self), workspace: nil).isDense)

        // A dense table's lookups outside its span, at its edges, and of ids only B has.
        // A hash table reads ids by position on every probe: the sections are indexed for it only.
        var (dense, denseB) = (ItemIDs([[1, 2], [3]]), ItemIDs([[3, 4]]))
        #expect(IDTable.forIDs(&dense, &denseB, hash: IDHash.fastest(for: Int.self), workspace: nil).isDense)
        #expect(dense.sectionOf.isEmpty && denseB.sectionOf.isEmpty)
        var (spread, spreadB) = (ItemIDs([[1, 2 << 40], [3]]), ItemIDs([[3, 4]]))
        #expect(!IDTable.forIDs(&spread, &spreadB, hash: IDHash.fastest(for: Int.self), workspace: nil).isDense)
        #expect(spread.sectionOf == [0, 0, 1] && spreadB.sectionOf.isEmpty, "one section needs no index")

        // Both kinds of table: lookups outside the span, at its edges, and of ids only B has.
        for (a, b) in [([-7, -3, 0, 5], [5, -7, 6, 8]), ([-7, -3, 0, 5 << 20], [5 << 20, -7, 6, 8])] {
            var (a, b) = (ItemIDs([a]), ItemIDs([b]))
            let table = IDTable.forIDs(&a, &b, hash: IDHash.fastest(for: Int.self), workspace: nil)
            #expect(table.enter(a) == [])
            var answers = Answers(count: b.count)
            _ = table.lookUp(b, in: a, into: &answers)
            #expect(table.position(of: -7, in: a, b) == 0 && table.position(of: a[3], in: a, b) == 3)
            #expect(table.position(of: 6, in: a, b) == -1, "B's new id is not an A position")
            #expect(table.position(of: -8, in: a, b) == -1 && table.position(of: 9, in: a, b) == -1)
            #expect(table.position(of: Int.min, in: a, b) == -1 && table.position(of: Int.max, in: a, b) == -1)
        }
    }
}

/// What a lookup reported for each B position: its A position (`matched`) or, for an id A does
/// not have, the earlier B position with it or −1 (`unmatched`); −2 where nothing was reported.
/// Checks that no position is reported twice.
struct Answers: LookUpResults {
    var matched: [Int]
    var unmatched: [Int]
    /// The positions reported to `unmatched`, in the order they were.
    var unmatchedOrder: [Int] = []

    init(count: Int) {
        matched = [Int](repeating: -2, count: count)
        unmatched = matched
    }

    mutating func matched(_ q: Int, _ p: Int) {
        #expect(matched[q] == -2 && unmatched[q] == -2, "B position \(q) reported once")
        matched[q] = p
    }

    mutating func unmatched(_ q: Int, _ earlier: Int) {
        #expect(matched[q] == -2 && unmatched[q] == -2, "B position \(q) reported once")
        unmatched[q] = earlier
        unmatchedOrder.append(q)
    }
}
