import CatalogModel
/// A JSON value whose object keys keep the order they were written in.
///
/// Foundation's encoders sort keys or scramble them; files people read (`show --json`, reports)
/// read better with `id` and `kind` first, and stay byte-for-byte stable between runs.
public indirect enum OrderedJSON: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral {
    case object([(String, OrderedJSON)])
    case array([OrderedJSON])
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: OrderedJSON...) { self = .array(elements) }

    /// `.string(value)`, or `.null` for `nil`.
    public static func string(_ value: String?) -> OrderedJSON { value.map(OrderedJSON.string) ?? .null }
    /// `.integer(value)`, or `.null` for `nil`.
    public static func integer(_ value: Int?) -> OrderedJSON { value.map(OrderedJSON.integer) ?? .null }

    /// The JSON text: two-space indentation when `pretty`, else compact.
    public func serialized(pretty: Bool = true) -> String {
        var out = ""
        write(to: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(to out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.newline(&out, pretty: pretty, indent: indent + 1)
                Self.writeString(key, to: &out)
                out += pretty ? ": " : ":"
                value.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            Self.newline(&out, pretty: pretty, indent: indent)
            out += "}"
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            // Arrays without objects that fit in a short line ([180, 256], [[0, 1], [2, 3]]) stay
            // on one line.
            let inline = !pretty || (!containsObject && serialized(pretty: false).count <= 72)
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += inline && pretty ? ", " : "," }
                if !inline { Self.newline(&out, pretty: pretty, indent: indent + 1) }
                element.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if !inline { Self.newline(&out, pretty: pretty, indent: indent) }
            out += "]"
        case .string(let string):
            Self.writeString(string, to: &out)
        case .integer(let integer):
            out += String(integer)
        case .double(let double):
            if double.isFinite {
                out += double == double.rounded() && abs(double) < 1e15 ? String(Int(double)) : String(double)
            } else {
                out += "null"
            }
        case .bool(let bool):
            out += bool ? "true" : "false"
        case .null:
            out += "null"
        }
    }

    private var containsObject: Bool {
        switch self {
        case .object: true
        case .array(let elements): elements.contains(where: \.containsObject)
        default: false
        }
    }

    private static func newline(_ out: inout String, pretty: Bool, indent: Int) {
        guard pretty else { return }
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    private static func writeString(_ string: String, to out: inout String) {
        appendJSONString(string, to: &out)
    }

    public static func == (a: OrderedJSON, b: OrderedJSON) -> Bool {
        a.serialized(pretty: false) == b.serialized(pretty: false)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized(pretty: false))
    }
}
