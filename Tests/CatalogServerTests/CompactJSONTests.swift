import CatalogDiff
import CatalogJSON
import CatalogModel
@testable import CatalogStore
import Foundation
import Testing

/// The bytes the API answers writes and change feeds with are exactly the documented JSON,
/// written compactly.
@Suite("Compact write answers and changesets")
struct CompactJSONTests {
    @Test("2,000 random write results: compactWrite is write(_:).serialized(pretty: false), and compactChangeset is jsonValue.serialized(pretty: false), byte for byte; Codable writes the same document and reads it back")
    func sameBytes() throws {
        var random = SplitMix64(seed: 0xC0DE)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        func number() -> Int { [0, 1, 9, 10, 12_345, Int.max, Int.min, -1, pick(1_000_000)][pick(9)] }
        func path() -> ItemPath { ItemPath(section: number(), item: number()) }
        func list<T>(_ make: () -> T) -> [T] { pick(3) == 0 ? [] : (0..<1 + pick(4)).map { _ in make() } }
        for _ in 0..<2_000 {
            let stages = (0..<pick(6)).map { _ in
                Stage(sections: SectionChanges(deleted: list(number), inserted: list(number), reloaded: list(number),
                                               moved: list { Move(from: number(), to: number()) }),
                      items: ItemChanges(deleted: list(path), inserted: list(path), reloaded: list(path),
                                         moved: list { Move(from: path(), to: path()) }))
            }
            let changeset = Changeset(stages: stages, fromRevision: pick(3) == 0 ? nil : number(),
                                      toRevision: pick(3) == 0 ? nil : number())
            let result = WriteResult(catalog: "c", previousRevision: 1, revision: number(), changeset: changeset)
            let expected = Documents.write(result).serialized(pretty: false)
            let written = String(decoding: Documents.compactWrite(result), as: UTF8.self)
            if written != expected {
                Issue.record("compact \(written), documented \(expected)")
                return
            }
            let changesetBytes = String(decoding: Documents.compactChangeset(changeset), as: UTF8.self)
            if changesetBytes != changeset.jsonValue.serialized(pretty: false) {
                Issue.record("compact \(changesetBytes), documented \(changeset.jsonValue.serialized(pretty: false))")
                return
            }
            // The third writer, Codable's: the same document (keys in any order), read back whole.
            let encoded = try JSONEncoder().encode(changeset)
            let fromCodable = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
            let fromCompact = try JSONSerialization.jsonObject(with: Data(changesetBytes.utf8)) as? NSDictionary
            let decoded = try JSONDecoder().decode(Changeset.self, from: encoded)
            if fromCodable != fromCompact || decoded != changeset {
                Issue.record("Codable wrote \(String(decoding: encoded, as: UTF8.self)), documented \(changesetBytes)")
                return
            }
        }
    }
}
