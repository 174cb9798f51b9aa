import CatalogModel
import Foundation
import Testing
@testable import CatalogImport

@Suite("JSON parser")
struct JSONParserTests {
    private func parse(_ text: String) -> Result<PropertyValue, JSONParser.Failure> {
        Data(text.utf8).withUnsafeBytes { bytes in Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) } }
    }

    private func value(_ text: String) throws -> PropertyValue {
        try parse(text).get()
    }

    private func failure(_ text: String) -> String? {
        if case .failure(let failure) = parse(text) { return failure.message }
        return nil
    }

    @Test("scalars keep their exact types")
    func scalars() throws {
        #expect(try value("true").exactly == "bool(true)")
        #expect(try value("false").exactly == "bool(false)")
        #expect(try value("null").exactly == "null")
        #expect(try value("0").exactly == "integer(0)")
        #expect(try value("-12").exactly == "integer(-12)")
        #expect(try value("9223372036854775807").exactly == "integer(9223372036854775807)")
        #expect(try value("9223372036854775808").exactly == "double(9.223372036854776e+18)")
        #expect(try value("1.5").exactly == "double(1.5)")
        #expect(try value("-2.5e3").exactly == "double(-2500.0)")
        #expect(try value("1E+2").exactly == "double(100.0)")
        #expect(try value(" \n\t\"x\" ").exactly == "string(x)")
    }

    @Test("escapes, surrogate pairs and raw UTF-8 decode to the right characters")
    func strings() throws {
        #expect(try value(#""a\"b\\c\/d\b\f\n\r\t""#).exactly == "string(a\"b\\c/d\u{8}\u{C}\n\r\t)")
        #expect(try value(#""\u00e9\u66f8\ud83d\udeb2""#).exactly == "string(é書🚲)")
        #expect(try value("\"é書🚲\"").exactly == "string(é書🚲)")
        #expect(try value("\u{FEFF}[]").exactly == "array([])", "a byte-order mark is skipped")
    }

    @Test("objects nested in objects and arrays keep their own members; a repeated name is refused")
    func objects() throws {
        let text = #"{"a": {"b": 1, "c": {"d": [{"e": 2}, {}, {"e": 3, "f": 4}]}, "f": 5}, "g": 6, "a2": {}, "h": 7}"#
        #expect(try value(text).exactly == "dictionary([a: dictionary([b: integer(1), c: dictionary([d: array([dictionary([e: integer(2)]), "
            + "dictionary([]), dictionary([e: integer(3), f: integer(4)])])]), f: integer(5)]), a2: dictionary([]), g: integer(6), h: integer(7)])")
        #expect(failure(#"{"a": {"e": 3, "e": 4}}"#)?.contains(#"the member name "e" appears twice in one object"#) == true)
        #expect(failure(#"{"g": 6, "a": {}, "g": 7}"#)?.contains(#""g" appears twice"#) == true)
        // Names are compared as Swift compares strings: canonically equivalent spellings are one name.
        #expect(failure("{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}") != nil)
        // A failure inside a nested object leaves nothing behind for the next document.
        #expect(failure(#"{"a": {"b": 1, "c": }"#) != nil)
        #expect(try value(#"{"x": 1}"#).exactly == "dictionary([x: integer(1)])")
    }

    @Test("broken JSON is refused with a line and column")
    func errors() {
        #expect(failure("") == "line 1, column 1: unexpected end of file, expected a value")
        #expect(failure("{\"a\": [1, 2") == "line 1, column 12: unexpected end of file, expected ',' or ']' in an array")
        #expect(failure("{\n  \"a\": 1,\n  \"b\" 2\n}") == "line 3, column 7: unexpected '2', expected ':' after a member name")
        #expect(failure("[1,]") == "line 1, column 4: unexpected ']', expected a value")
        #expect(failure("{\"a\": 1,}") == "line 1, column 9: unexpected '}', expected a member name in double quotes")
        #expect(failure("[01]")?.contains("may not start with 0") == true)
        #expect(failure("[1.]")?.contains("after the decimal point") == true)
        #expect(failure("[tru]")?.contains("expected a value") == true)
        #expect(failure("\"abc")?.contains("unterminated string") == true)
        #expect(failure("\"a\tb\"")?.contains("control character U+0009") == true)
        #expect(failure(#""\x""#)?.contains("invalid escape") == true)
        #expect(failure(#""\ud83d""#)?.contains("low surrogate") == true)
        #expect(failure(#""\udeb2""#)?.contains("lone low surrogate") == true)
        #expect(failure("[] []")?.contains("after the end of the JSON value") == true)
        #expect(failure("{'a': 1}")?.contains("double quotes") == true)
        #expect(failure(String(repeating: "[", count: 600) + String(repeating: "]", count: 600))?.contains("nested more than") == true)
    }

    @Test("agrees with JSONSerialization on random documents")
    func randomDocuments() throws {
        var random = SplitMix64(seed: 42)
        for _ in 0..<300 {
            let document = randomJSON(&random, depth: 0)
            let data = try JSONSerialization.data(withJSONObject: document, options: [.fragmentsAllowed])
            let ours = try data.withUnsafeBytes { bytes in try JSONParser.parse(bytes) }
            let theirs = PropertyValue(foundation: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
            #expect(ours.exactly == theirs.exactly, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    private func randomJSON(_ random: inout SplitMix64, depth: Int) -> Any {
        let choice = random.next() % (depth > 3 ? 4 : 6)
        switch choice {
        // Within ±2^53: Foundation reads larger integers as doubles, this parser keeps them exact.
        case 0: return Int(truncatingIfNeeded: random.next() >> UInt64(11 + random.next() % 53)) * (random.next() % 2 == 0 ? 1 : -1)
        case 1: return ["", "plain", "quote \" and \\ slash /", "tab\tnew\nline", "é書🚲", "\u{1}\u{1F}"][Int(random.next() % 6)]
        case 2: return random.next() % 2 == 0
        case 3: return Double(Int(random.next() % 100_000)) / 64
        case 4: return (0..<Int(random.next() % 5)).map { _ in randomJSON(&random, depth: depth + 1) }
        default:
            var object: [String: Any] = [:]
            for i in 0..<Int(random.next() % 5) { object["k\(i)\(["", "é", "\""][i % 3])"] = randomJSON(&random, depth: depth + 1) }
            return object
        }
    }
}

extension PropertyValue {
    /// A canonical text of the value with its exact types, for comparisons in tests.
    var exactly: String {
        switch self {
        case .string(let s): "string(\(s))"
        case .integer(let i): "integer(\(i))"
        case .double(let d): "double(\(d))"
        case .bool(let b): "bool(\(b))"
        case .array(let a): "array([\(a.map(\.exactly).joined(separator: ", "))])"
        case .dictionary(let d): "dictionary([\(d.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.exactly)" }.joined(separator: ", "))])"
        case .data(let d): "data(\(d.count))"
        case .date(let d): "date(\(d.timeIntervalSince1970))"
        case .null: "null"
        }
    }
}
