import CatalogModel
import CatalogViews
import Foundation
import Testing

@Suite struct ViewDefinitionTests {
    @Test func parsesTheLanguage() throws {
        let p = try ViewPredicate(parsing: #"playCount >= 1000000 and status in ["published", "recommended"]"#)
        #expect(p == .and([.compare(.item(.playCount), .greaterOrEqual, .integer(1_000_000)),
                           .among(.item(.status), [.text("published"), .text("recommended")])]))
        let q = try ViewPredicate(parsing: #"title contains "cat" or not (author = "Tolstoy")"#)
        #expect(q == .or([.contains(.item(.title), "cat"), .not(.compare(.item(.author), .equal, .text("Tolstoy")))]))
        #expect(try ViewPredicate(parsing: "author = null") == .presence(.item(.author), present: false))
        #expect(try ViewPredicate(parsing: "author != null") == .presence(.item(.author), present: true))
        #expect(try ViewPredicate(parsing: #"section = "classics""#) == .compare(.section, .equal, .text("classics")))
        #expect(try ViewPredicate(parsing: #"title = "\u00e9\"\n""#) == .compare(.item(.title), .equal, .text("é\"\n")))
        #expect(try ViewPredicate(parsing: "width > 99.5") == .compare(.item(.width), .greater, .number(99.5)))
        // The text form parses back to the same predicate.
        for text in [#"a = 1"#.replacingOccurrences(of: "a", with: "likeCount"),
                     #"(title contains "x" or title startsWith "y") and not (kind = "video" or playCount < 3)"#,
                     #"not not author = null"#] {
            let parsed = try ViewPredicate(parsing: text)
            #expect(try ViewPredicate(parsing: parsed.description) == parsed)
        }
    }

    @Test(arguments: [
        ("(title = \"a\"", 13, "expected ), found end of text"),
        ("title ~ \"a\"", 7, "expected a field, a value, an operator or a parenthesis, found \"~\""),
        ("playCount contains \"x\"", 11, "playCount: contains needs a text field, and playCount is a number"),
        ("playCount = \"x\"", 13, "playCount: expected a number, found the string \"x\""),
        ("status = \"live\"", 10, "status: expected one of draft, reviewing, recommended, published, rejected, found \"live\""),
        ("plays > 3", 1, nil),
        ("title = \"abc", 9, "expected a closing \" for the string that starts here, found end of text"),
        ("title >= null", 10, "expected a value (null only after = or !=), found null"),
        ("title = \"a\" title", 13, "expected and, or, or the end of the expression, found title"),
    ] as [(String, Int, String?)])
    func refusesWithThePosition(_ text: String, _ position: Int, _ detail: String?) {
        #expect {
            try ViewPredicate(parsing: text)
        } throws: { error in
            guard let error = error as? ViewError else { return false }
            return error.parameter == .where && error.position == position && (detail == nil || error.detail == detail!)
        }
    }

    @Test func refusesHostileSizesAtOnce() throws {
        let long = String(repeating: "title = \"a\" or ", count: 10_000) + "title = \"b\""
        #expect(throws: ViewError(.where, at: ViewPredicate.maximumLength + 1, .tooLong(maximum: ViewPredicate.maximumLength))) {
            try ViewPredicate(parsing: long)
        }
        let deep = String(repeating: "(", count: 10_000) + "title = \"a\"" + String(repeating: ")", count: 10_000)
        #expect(throws: ViewError.self) { try ViewPredicate(parsing: deep) }
        let nested = String(repeating: "(", count: 33) + "title = \"a\"" + String(repeating: ")", count: 33)
        #expect(throws: ViewError(.where, at: 33, .tooDeep(maximum: 32))) { try ViewPredicate(parsing: nested) }
        #expect(throws: ViewError(.limit, at: 1, .expected("an integer from 0 to \(Int.max)", found: "\"-1\""))) {
            try ViewDefinition(where: nil, sort: nil, group: nil, limit: "-1", offset: nil)
        }
        #expect(throws: ViewError.self) { try ViewDefinition(where: nil, sort: nil, group: nil, limit: nil, offset: "1e30") }
        #expect(throws: ViewError(.sort, at: 11, .repeatedSortKey("title"))) { try ViewDefinition(sort: "title,-id,title") }
        let many = (0..<200).map { _ in "title" }.joined(separator: ",")
        #expect(throws: ViewError(.sort, at: 7, .repeatedSortKey("title"))) { try ViewDefinition(sort: many) }
        #expect(throws: ViewError.self) { try ViewDefinition(sort: "-plays") }
        #expect(throws: ViewError.self) { try ViewDefinition(group: "-section") }
    }

    @Test func codableAsItsTextForms() throws {
        let view = try ViewDefinition(where: #"status in ["published"] and playCount >= 10"#, sort: "-playCount,title",
                                      group: "status", limit: 50, offset: 5)
        let data = try JSONEncoder().encode(view)
        #expect(try JSONDecoder().decode(ViewDefinition.self, from: data) == view)
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        #expect(object["sort"] as? String == "-playCount,title")
        #expect(object["group"] as? String == "status")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ViewDefinition.self, from: Data(#"{"where": "title = "}"#.utf8))
        }
    }
}
