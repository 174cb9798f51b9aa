/// The folding under which `contains` and `startsWith` compare text (docs/Views.md, "Folding"):
/// compatibility decomposition (NFKD), nonspacing and enclosing marks removed, full Unicode case
/// folding. So `É` matches `e`, `Ａ` matches `a`, `ß` matches `ss`, `ﬁ` matches `fi`, and a Hangul
/// syllable matches the jamo it is written with.
///
/// The fold of a text is the concatenation of the folds of its scalars, each looked up in a table
/// generated from the Unicode data (Scripts/generate-fold-table.py); ASCII text is lowercased
/// without a look-up. Folding is idempotent: the fold of a fold is itself.
public enum TextFolding {
    /// `text` folded.
    ///
    /// - Complexity: O(*n*) in the length of `text`.
    public static func fold(_ text: String) -> String {
        if !text.utf8.contains(where: { $0 >= 0x80 }) {
            guard text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            FoldTable.shared.appendFold(of: scalar, to: &scalars)
        }
        return String(scalars)
    }

    /// Whether `folded` (a fold) holds `term` (a fold) as a run of scalars.
    ///
    /// - Complexity: O(*n* · *m*) in the worst case, O(*n*) for text and terms met in practice.
    public static func folded(_ folded: String, contains term: String) -> Bool {
        if term.isEmpty { return true }
        var folded = folded, term = term
        return folded.withUTF8 { haystack in
            term.withUTF8 { needle in
                guard needle.count <= haystack.count else { return false }
                let first = needle[0]
                var start = 0
                let last = haystack.count - needle.count
                while start <= last {
                    if haystack[start] == first {
                        var k = 1
                        while k < needle.count && haystack[start + k] == needle[k] { k += 1 }
                        if k == needle.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }

    /// Whether `folded` (a fold) begins with `term` (a fold).
    public static func folded(_ folded: String, startsWith term: String) -> Bool {
        folded.utf8.starts(with: term.utf8)
    }
}

/// The fold of each scalar that does not fold to itself, read once from ``source``.
final class FoldTable: Sendable {
    static let shared = FoldTable()

    /// One bit a scalar: set when the scalar has an entry.
    private let hasEntry: [UInt64]
    private let keys: [UInt32]
    /// Where each key's fold starts in `pool`; the next key's start ends it.
    private let starts: [UInt32]
    private let pool: [Unicode.Scalar]

    private init() {
        var hasEntry = [UInt64](repeating: 0, count: 0x110000 / 64)
        var keys: [UInt32] = [], starts: [UInt32] = [], pool: [Unicode.Scalar] = []
        keys.reserveCapacity(9000)
        var number: UInt32 = 0
        var key: UInt32 = 0
        for byte in Self.source.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): number = number << 4 | UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): number = number << 4 | UInt32(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: ":"):
                key = number; number = 0
                keys.append(key); starts.append(UInt32(pool.count))
                hasEntry[Int(key) >> 6] |= 1 << (UInt64(key) & 63)
            case UInt8(ascii: ","), UInt8(ascii: ";"):
                // `;` right after `:` ends an empty fold.
                if number != 0 || byte == UInt8(ascii: ",") { pool.append(Unicode.Scalar(number)!) }
                number = 0
            default: continue
            }
        }
        starts.append(UInt32(pool.count))
        self.hasEntry = hasEntry
        self.keys = keys
        self.starts = starts
        self.pool = pool
    }

    func appendFold(of scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView) {
        let value = scalar.value
        if value < 0x80 {
            out.append(value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value | 0x20)! : scalar)
            return
        }
        if value >= 0xAC00 && value <= 0xD7A3 {
            // A Hangul syllable: its canonical decomposition into conjoining jamo, by arithmetic.
            let index = value - 0xAC00
            out.append(Unicode.Scalar(0x1100 + index / 588)!)
            out.append(Unicode.Scalar(0x1161 + (index % 588) / 28)!)
            if index % 28 != 0 { out.append(Unicode.Scalar(0x11A7 + index % 28)!) }
            return
        }
        guard hasEntry[Int(value) >> 6] & (1 << (UInt64(value) & 63)) != 0 else {
            out.append(scalar)
            return
        }
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < value { low = middle + 1 } else { high = middle }
        }
        for k in Int(starts[low])..<Int(starts[low + 1]) { out.append(pool[k]) }
    }
}
