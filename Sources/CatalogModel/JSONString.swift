/// Appends `string` to `out` as a JSON string literal: quoted, with quotes, backslashes and
/// control characters escaped. Shared by the exporters and the store's journal, which write JSON
/// by hand where `JSONEncoder` would cost more than the rest of the work.
public func appendJSONString(_ string: String, to out: inout String) {
    out += "\""
    // Most strings need no escaping: append them whole.
    if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
        out += string
        out += "\""
        return
    }
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default:
            out.unicodeScalars.append(scalar)
        }
    }
    out += "\""
}
