import CatalogModel
import Foundation
import Testing
@testable import CatalogImport

@Suite("Binary property lists")
struct BinaryPropertyListTests {
    /// A binary plist from its objects (each already encoded, references one byte wide).
    private func bplist(_ objects: [[UInt8]], top: UInt8 = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = UInt8(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
        bytes += [0, 0, 0, 0, 0, 0, 0, top]
        bytes += [0, 0, 0, 0, 0, 0, 0, table]
        return Data(bytes)
    }

    private func failure(_ data: Data) -> String? {
        do {
            _ = try BinaryPropertyListParser.parse(data)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("agrees with Foundation's reader on random catalogues, ints, reals, dates, data and UTF-16")
    func agreesWithFoundation() throws {
        var random = SplitMix64(seed: 11)
        for n in 0..<100 {
            let catalog = Catalog.generated(name: "p\(n)", items: Int(random.next() % 40), sections: 1 + Int(random.next() % 4),
                                            kind: SectionKind.allCases[n % 3], seed: random.next())
            let data = CatalogExporter.propertyList(catalog, format: .binary)
            let ours = try BinaryPropertyListParser.parse(data)
            let theirs = PropertyValue(foundation: try PropertyListSerialization.propertyList(from: data, format: nil))
            #expect(ours.exactly == theirs.exactly)
        }
        let mixed: [String: Any] = ["big": Int64.max, "negative": -42, "small": 7, "real": 2.5, "when": Date(timeIntervalSinceReferenceDate: 1234.5),
                                    "blob": Data([1, 2, 3]), "書": "é書🚲", "list": [1, "two", false, true]]
        let data = try PropertyListSerialization.data(fromPropertyList: mixed, format: .binary, options: 0)
        let ours = try BinaryPropertyListParser.parse(data)
        let theirs = PropertyValue(foundation: try PropertyListSerialization.propertyList(from: data, format: nil))
        #expect(ours.exactly == theirs.exactly)
    }

    @Test("a set, which crashes Foundation's reader on Linux, is refused")
    func set() {
        let data = bplist([[0xC1, 0x01], [0xD0]])
        #expect(failure(data)?.contains("a set") == true)
        #expect(throws: ImportError.self) { try CatalogImporter.decode(data, fileName: "set.plist") }
    }

    @Test("an array that contains itself is refused instead of recursing forever")
    func cycle() {
        let message = failure(bplist([[0xA1, 0x00]])) ?? ""
        #expect(message.contains("levels deep") || message.contains("expand"), "\(message)")
    }

    @Test("an exponential expansion (each array holding the next one twice) is refused")
    func expansion() {
        var objects: [[UInt8]] = (0..<60).map { i in [0xA2, UInt8(i + 1), UInt8(i + 1)] }
        objects.append([0x10, 0x01])
        #expect(failure(bplist(objects))?.contains("expand") == true)
    }

    @Test("offsets, references and lengths out of range are refused")
    func outOfRange() {
        #expect(failure(bplist([[0xA1, 0x05]]))?.contains("reference to object 5") == true)
        #expect(failure(bplist([[0x5F, 0x10, 0xFF]]))?.contains("exceeds the file") == true)
        #expect(failure(bplist([[0x6F, 0x10, 0x14]]))?.contains("runs past the end") == true)
        #expect(failure(bplist([[0xD1, 0x01, 0x01], [0x10, 0x01]]))?.contains("not a string") == true)
        #expect(failure(Data("bplist00".utf8)) != nil)
        var badTrailer = [UInt8](bplist([[0x08]]))
        badTrailer[badTrailer.count - 1] = 0xF0
        #expect(failure(Data(badTrailer))?.contains("out of range") == true)
    }
}
