// A libFuzzer target for everything that reads untrusted bytes: catalogue files (JSON, XML and
// binary property lists, every shape), batch files and move bodies, read with the HTTP API's
// limits. A reader may refuse its input with an error; it may not crash, hang or hand back a
// catalogue that breaks the model (built with DEBUG, the decoder checks every catalogue it makes).
//
// Built and run by Scripts/fuzz.sh; the corpus is Fuzz/corpus.
import CatalogImport
import CatalogModel
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let selector = start.load(as: UInt8.self)
    let data = Data(bytes: start + 1, count: count - 1)
    let limits = DocumentLimits.requests
    switch selector % 5 {
    case 0:
        if let imported = try? CatalogImporter.decode(data, fileName: "fuzz.json", options: ImportOptions(limits: limits)) {
            precondition(imported.catalog.violations().isEmpty, "the decoder made an invalid catalogue")
        }
    case 1:
        if let imported = try? CatalogImporter.decode(data, fileName: "fuzz.plist", options: ImportOptions(limits: limits)) {
            precondition(imported.catalog.violations().isEmpty, "the decoder made an invalid catalogue")
        }
    case 2:
        _ = try? CatalogImporter.decode(data, fileName: "fuzz", options: ImportOptions(limits: limits))
    case 3:
        _ = try? BatchReader.decode(data, fileName: "batch.json", limits: limits)
    default:
        _ = try? BatchReader.decodeMove(data, fileName: "move.json")
    }
    return 0
}
