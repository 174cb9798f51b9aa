import CatalogViews
import Testing

@Suite struct FoldingTests {
    @Test(arguments: [
        ("É", "e"), ("Ａ", "a"), ("ß", "ss"), ("ﬁ", "fi"), ("K", "k"), ("Café", "cafe"),
        ("ΣΊΣΥΦΟΣ", "σισυφοσ"), ("ς", "σ"), ("İ", "i"), ("①", "1"), ("ＡＢＣ", "abc"), ("猫和纸箱", "猫和纸箱"),
        ("한", "\u{1112}\u{1161}\u{11AB}"), ("STREET Piano", "street piano"),
    ])
    func foldsAsTheViewsDocumentSays(_ text: String, _ folded: String) {
        #expect(TextFolding.fold(text).unicodeScalars.elementsEqual(folded.unicodeScalars))
    }

    @Test func foldingIsIdempotentAndPerScalar() {
        var random = SystemRandomNumberGenerator()
        let pool: [Unicode.Scalar] = ["A", "a", "É", "\u{301}", "ß", "ﬁ", "Ｂ", "猫", "한", "İ", "Σ", "ς", " ", "1", "①", "\u{1E9E}"]
        for _ in 0..<500 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &random) { text.append(pool.randomElement(using: &random)!) }
            let string = String(text)
            let folded = TextFolding.fold(string)
            #expect(TextFolding.fold(folded) == folded)
            let perScalar = string.unicodeScalars.map { TextFolding.fold(String($0)) }.joined()
            #expect(folded.unicodeScalars.elementsEqual(perScalar.unicodeScalars))
        }
    }

    @Test func containsAndStartsWithCompareScalars() {
        #expect(TextFolding.folded(TextFolding.fold("猫和纸箱"), contains: TextFolding.fold("纸")))
        #expect(TextFolding.folded(TextFolding.fold("Crème brûlée"), contains: TextFolding.fold("BRULE")))
        #expect(!TextFolding.folded(TextFolding.fold("cat"), contains: TextFolding.fold("cats")))
        #expect(TextFolding.folded(TextFolding.fold("Straße"), startsWith: TextFolding.fold("STRASS")))
        #expect(!TextFolding.folded(TextFolding.fold("Straße"), startsWith: TextFolding.fold("trasse")))
    }
}
