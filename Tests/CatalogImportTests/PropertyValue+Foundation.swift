import Foundation
@testable import CatalogImport

/// Foundation's readers as the reference the package's own parsers are checked against.
extension PropertyValue {
    /// Converts what `JSONSerialization` or `PropertyListSerialization` returned.
    ///
    /// Exact type checks come first: a failed `as?` cast on Linux walks Foundation's bridging
    /// machinery, and doing that for every value made conversion cost 5× the parse.
    init(foundation value: Any) {
        let type = Swift.type(of: value)
        if type == String.self {
            self = .string(value as! String)
        } else if type == [String: Any].self {
            self = .dictionary((value as! [String: Any]).mapValues(PropertyValue.init(foundation:)))
        } else if type == [Any].self {
            self = .array((value as! [Any]).map(PropertyValue.init(foundation:)))
        } else if type == Bool.self {
            self = .bool(value as! Bool)
        } else if let number = value as? NSNumber {
            self = PropertyValue(number: number)
        } else if let string = value as? String {
            self = .string(string)
        } else if let dictionary = value as? [String: Any] {
            self = .dictionary(dictionary.mapValues(PropertyValue.init(foundation:)))
        } else if let array = value as? [Any] {
            self = .array(array.map(PropertyValue.init(foundation:)))
        } else if let data = value as? Data {
            self = .data(data)
        } else if let date = value as? Date {
            self = .date(date)
        } else {
            self = .null
        }
    }

    private init(number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "c"), UInt8(ascii: "B"):
            self = .bool(number.boolValue)
        case UInt8(ascii: "d"), UInt8(ascii: "f"):
            self = .double(number.doubleValue)
        case UInt8(ascii: "Q"):
            // Unsigned 64-bit values above Int.max do not fit an Int; keep them as doubles so that
            // range checks report them instead of wrapping.
            self = number.uint64Value > UInt64(Int.max) ? .double(number.doubleValue) : .integer(number.intValue)
        default:
            self = .integer(number.intValue)
        }
    }
}
