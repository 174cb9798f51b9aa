extension Catalog {
    /// A deterministic synthetic catalogue for benchmarks and tests: `items` items spread evenly
    /// over `sections` sections of `kind`, with varied titles, counters, statuses and natural sizes.
    /// The same arguments always give the same catalogue.
    ///
    /// Shelves get exactly the capacity they need (at least 1); about one book in twenty shares a
    /// cover with an earlier one, as real shelves do.
    package static func generated(name: String = "generated", items: Int, sections: Int,
                                 kind: SectionKind = .videos, seed: UInt64 = 1) -> Catalog {
        precondition(items >= 0 && sections > 0, "need items ≥ 0 and sections > 0")
        var random = SplitMix64(seed: seed)
        let perSection = items / sections
        let remainder = items % sections
        let capacity = kind == .bookshelf ? max(1, perSection + (remainder > 0 ? 1 : 0)) : nil
        let sizes = [Size(width: 180, height: 256), Size(width: 180, height: 320), Size(width: 180, height: 180),
                     Size(width: 360, height: 202), Size(width: 240, height: 360)]
        var result: [Section] = []
        result.reserveCapacity(sections)
        var n = 0
        for s in 0..<sections {
            let count = perSection + (s < remainder ? 1 : 0)
            var section = Section(id: "s\(s + 1)", kind: kind, title: "\(kind.rawValue.prefix(1).uppercased())\(kind.rawValue.dropFirst()) \(s + 1)", capacity: capacity)
            section.items.reserveCapacity(count)
            for _ in 0..<count {
                n += 1
                let draw = random.next()
                let content: ItemContent
                switch kind {
                case .videos:
                    content = .video(Video(
                        title: "Video \(n): \(Self.words[Int(draw % 61) % Self.words.count]) \(Self.words[Int(draw >> 8 % 53) % Self.words.count])",
                        cover: "https://cdn.example.com/covers/\(n).jpg",
                        playCount: Int(draw >> 16 % 5_000_000), likeCount: Int(draw >> 40 % 100_000),
                        status: VideoStatus.allCases[Int(draw >> 60) % VideoStatus.allCases.count],
                        statusText: draw % 7 == 0 ? "Editor's pick" : nil))
                case .bookshelf:
                    // One book in twenty reuses an earlier cover, so derived ids need suffixes.
                    let cover = n > 20 && draw % 20 == 0 ? "\(n / 2)" : "\(n)"
                    content = .book(Book(title: "Book \(n)", cover: cover, author: draw % 3 == 0 ? nil : "Author \(draw % 997)"))
                case .icons:
                    content = .icon(Icon(name: "Icon \(n)", icon: "icon-\(n)"))
                }
                section.items.append(Item(id: "i\(n)", content: content, size: sizes[Int(draw >> 4) % sizes.count]))
            }
            result.append(section)
        }
        return Catalog(name: name, sections: result)
    }

    private static let words = ["Sunrise", "Harbour", "Kitchen", "Mountain", "Street", "Jazz", "Robot", "Garden",
                                "Tutorial", "Live", "Review", "Journey", "City", "Ocean", "Winter", "Festival"]
}

/// A small, fast, seedable pseudo-random generator (SplitMix64), so generated data is the same
/// on every platform and run.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
