import CatalogModel
import Foundation

/// A parsed JSON or property-list value, as a closed Swift enum instead of Foundation's `Any`.
///
/// Both file formats parse into this one tree, so the catalogue decoder walks one shape, knows the
/// exact type of every value (a JSON `true` is not the integer 1) and can say what it found.
package enum PropertyValue {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case array([PropertyValue])
    case dictionary([String: PropertyValue])
    case data(Data)
    case date(Date)
    case null

    /// What a person calls this kind of value, for error messages ("found a string").
    var typeDescription: String {
        switch self {
        case .string(let s): "a string (\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\")"
        case .integer(let i): "the integer \(i)"
        case .double(let d): "the number \(d)"
        case .bool(let b): "the boolean \(b)"
        case .array(let a): "an array of \(plural(a.count, "element"))"
        case .dictionary(let d):
            d.count <= 12 ? "a dictionary with keys \(d.keys.sorted())" : "a dictionary of \(d.count) keys (\(d.keys.sorted().prefix(12).joined(separator: ", ")), …)"
        case .data: "binary data"
        case .date: "a date"
        case .null: "null"
        }
    }
}
