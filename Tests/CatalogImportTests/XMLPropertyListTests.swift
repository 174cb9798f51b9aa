import CatalogModel
import Foundation
import Testing
@testable import CatalogImport

@Suite("XML property lists")
struct XMLPropertyListTests {
    private func parse(_ text: String, limits: DocumentLimits = .files) throws(XMLPropertyListParser.Failure) -> PropertyValue {
        var bytes = Array(text.utf8)
        let result = bytes.withUnsafeMutableBytes { bytes in
            Result { () throws(XMLPropertyListParser.Failure) in try XMLPropertyListParser.parse(UnsafeRawBufferPointer(bytes), limits: limits) }
        }
        return try result.get()
    }

    private func failure(_ text: String, limits: DocumentLimits = .files) -> XMLPropertyListParser.Failure? {
        do {
            _ = try parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    private func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>
        """
    }

    /// A random property-list value of every type Foundation writes, `depth` levels deep at most.
    private func randomValue(_ random: inout SplitMix64, depth: Int) -> Any {
        let texts = ["", "plain", "a < b && c > d", "quotes \" and '", "é書🚲", "  spaced  ", "line\nbreak", "]]>", "&amp;"]
        switch random.next() % (depth > 0 ? 8 : 6) {
        case 0: return texts[Int(random.next() % UInt64(texts.count))]
        case 1: return Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 64)
        case 2: return Double(Int(truncatingIfNeeded: random.next() % 2_000_000) - 1_000_000) / 64
        case 3: return random.next() % 2 == 0
        case 4: return Date(timeIntervalSince1970: TimeInterval(Int(random.next() % 4_000_000_000) - 1_000_000_000))
        case 5: return Data((0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 6: return (0..<Int(random.next() % 5)).map { _ in randomValue(&random, depth: depth - 1) }
        default:
            var dictionary: [String: Any] = [:]
            for _ in 0..<Int(random.next() % 5) {
                dictionary[texts[Int(random.next() % UInt64(texts.count))] + "\(random.next() % 10)"] = randomValue(&random, depth: depth - 1)
            }
            return dictionary
        }
    }

    @Test("agrees with Foundation's reader on random values of every type and on exported catalogues")
    func agreesWithFoundation() throws {
        var random = SplitMix64(seed: 29)
        for n in 0..<200 {
            let root: Any = n % 2 == 0 ? randomValue(&random, depth: 4) : [randomValue(&random, depth: 3)]
            let data = try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0)
            let ours = try data.withUnsafeBytes { try XMLPropertyListParser.parse($0) }
            let theirs = PropertyValue(foundation: try PropertyListSerialization.propertyList(from: data, format: nil))
            #expect(ours.exactly == theirs.exactly, "\(String(decoding: data, as: UTF8.self))")
        }
        for kind in SectionKind.allCases {
            let catalog = Catalog.generated(name: "x", items: 30, sections: 3, kind: kind, seed: 5)
            let data = CatalogExporter.propertyList(catalog, format: .xml)
            let ours = try data.withUnsafeBytes { try XMLPropertyListParser.parse($0) }
            let theirs = PropertyValue(foundation: try PropertyListSerialization.propertyList(from: data, format: nil))
            #expect(ours.exactly == theirs.exactly)
        }
    }

    @Test("text as hand-written files have it: references, CDATA, comments, empty elements, hex integers, a bare root")
    func handWrittenText() throws {
        let value = try parse(plist("""
            <!-- a shelf -->
            <dict>
              <key>name</key><string>Tom &amp; Jerry &lt;3 &#233;&#x66F8;</string>
              <key>raw</key><string><![CDATA[<b>bold</b> & more]]></string>
              <key>note</key><string>be<!-- not this -->fore</string>
              <key>empty</key><string/>
              <key>list</key><array/>
              <key>map</key><dict/>
              <key>hex</key><integer>0x1F</integer>
              <key>big</key><integer> -42 </integer>
              <key>yes</key><true/>
              <key>when</key><date>2024-05-01T12:00:00Z</date>
            </dict>
            """))
        guard case .dictionary(let d) = value else { Issue.record("not a dictionary: \(value.exactly)"); return }
        #expect(d["name"]?.exactly == "string(Tom & Jerry <3 é書)")
        #expect(d["raw"]?.exactly == "string(<b>bold</b> & more)")
        #expect(d["note"]?.exactly == "string(before)")
        #expect(d["empty"]?.exactly == "string()")
        #expect(d["list"]?.exactly == "array([])")
        #expect(d["map"]?.exactly == "dictionary([])")
        #expect(d["hex"]?.exactly == "integer(31)")
        #expect(d["big"]?.exactly == "integer(-42)")
        #expect(d["yes"]?.exactly == "bool(true)")
        #expect(d["when"]?.exactly == "date(1714564800.0)")
        #expect(try parse("<array><string>bare</string></array>").exactly == "array([string(bare)])")
    }

    @Test("errors say line and column", arguments: [
        ("<array>\n  <string>a</strin>\n</array>", "line 2, column 12: found </strin> inside <string>"),
        ("<dict>\n\t<integer>3</integer>\n</dict>", "line 2, column 2: found <integer> inside <dict> where a <key> belongs"),
        ("<dict><key>a</key><true/><key>a</key><false/></dict>", "line 1, column 26: the key \"a\" appears twice in one <dict>"),
        ("<array><strng>x</strng></array>", "line 1, column 8: unknown element <strng>"),
        ("<array>\n  stray text\n</array>", "line 2, column 3: unexpected 's'; expected a tag"),
        ("<array><integer>twelve</integer></array>", "line 1, column 8: <integer> holds \"twelve\"; expected a whole number"),
        ("<array><string>a &nbsp; b</string></array>", "line 1, column 18: unknown reference &nbsp;;"),
        ("<array><string>a</string>", "line 1, column 26: unexpected end of file; expected a tag"),
        ("<plist><array/></plist><array/>", "line 1, column 24: unexpected '<' after the end of the property list"),
        ("<!DOCTYPE plist [<!ENTITY x \"xx\">]><plist><string>&x;</string></plist>", "line 1, column 1: a DOCTYPE with declarations of its own is refused"),
        ("<plist version=\"1.0\"></plist>", "line 1, column 22: <plist> holds no value"),
        ("<array><date>yesterday</date></array>", "expected a date like 2024-05-01T12:00:00Z"),
        ("<array><data>!!</data></array>", "<data> does not hold base64 text"),
    ])
    func errorsSayWhere(text: String, expected: String) {
        let message = failure(text)?.message ?? "(no error)"
        #expect(message.contains(expected), "\(message)")
    }

    @Test("limits stop the reader part way: values past the budget, nesting past the depth")
    func limits() {
        let limits = DocumentLimits(maxItems: 10, maxSections: 2, maxDepth: 8)
        let many = "<array>" + String(repeating: "<integer>0</integer>", count: limits.valueBudget + 1) + "</array>"
        #expect(failure(many, limits: limits)?.tooLarge == true)
        let deep = String(repeating: "<array>", count: 9) + String(repeating: "</array>", count: 9)
        #expect(failure(deep, limits: limits)?.tooLarge == true)
        let deepEnough = String(repeating: "<array>", count: 8) + String(repeating: "</array>", count: 8)
        #expect(failure(deepEnough, limits: limits) == nil)
    }

    @Test("through the importer: an XML error names the file, line and column; a damaged binary header is named")
    func throughTheImporter() throws {
        let broken = Data(plist("<array>\n<dict><key>name</key><string>A</string><key>icon</key><strin>a</strin></dict>\n</array>").utf8)
        let error = try #require(throwing(broken, as: "icons.plist"))
        #expect(error.description.hasPrefix("icons.plist: not valid property list (XML or binary): line 5, column 55: unknown element <strin>"), "\(error)")

        let good = try PropertyListSerialization.data(fromPropertyList: [["name": "A", "icon": "a"]], format: .binary, options: 0)
        var damaged = good
        damaged.replaceSubrange(0..<8, with: Array("bplisx00".utf8))
        let header = try #require(throwing(damaged, as: "icons.plist"))
        #expect(header.reason == .damagedBinaryPropertyList(header: "bplisx00"))
        #expect(header.description == #"icons.plist: a damaged binary property list: it begins with "bplisx00" where "bplist00" belongs"#)
        damaged.replaceSubrange(0..<8, with: [0, 1] + Array("plist0".utf8))
        #expect(try #require(throwing(damaged, as: "icons.plist")).reason == .damagedBinaryPropertyList(header: #"\x00\x01plist0"#))
        let utf16 = Data([0xFF, 0xFE]) + plist("<array/>").data(using: .utf16LittleEndian)!
        #expect(try #require(throwing(utf16, as: "icons.plist")).description.contains("UTF-16 text; expected an XML property list in UTF-8"))
        // An XML property list with a Latin-1 title is text that is not UTF-8, not a damaged
        // binary property list: the line and column of the first bad byte.
        let utf8 = Array(plist("<array>\n<dict><key>name</key><string>Café</string><key>icon</key><string>c</string></dict>\n</array>").utf8)
        let e = try #require(utf8.firstIndex(of: 0xC3))
        let latin1 = Data(utf8[..<e] + [0xE9] + utf8[(e + 2)...])  // é in Latin-1
        let notUTF8 = try #require(throwing(latin1, as: "icons.plist"))
        guard case .invalidUTF8(_, let line, let column) = notUTF8.reason else {
            Issue.record("expected invalidUTF8, got \(notUTF8.reason)")
            return
        }
        #expect(line == 5 && column == 33, "\(notUTF8)")
        #expect(notUTF8.description.hasPrefix("icons.plist: not UTF-8 text: the byte at line 5, column 33"), "\(notUTF8)")
        damaged.replaceSubrange(0..<8, with: Array("bplist17".utf8))
        #expect(try #require(throwing(damaged, as: "icons.plist")).description.contains(#"the header "bplist17" is not a version this reader knows"#))
    }

    private func throwing(_ data: Data, as name: String) -> ImportError? {
        do {
            _ = try CatalogImporter.decode(data, fileName: name)
            return nil
        } catch {
            return error
        }
    }
}
