import CatalogModel

/// A view's filter: the `where` expression (docs/Views.md, "Filter").
///
/// Comparisons with an absent value are false, except `= null`, which tests absence (and
/// `!= null` presence); `not` of a false comparison is true.
public indirect enum ViewPredicate: Sendable, Hashable {
    /// `field op value`: numbers by value, text by the Unicode scalar values of its NFC form.
    case compare(ViewField, ComparisonOperator, ViewValue)
    /// `field = null` (`present: false`) or `field != null` (`present: true`).
    case presence(ViewField, present: Bool)
    /// `field in [v1, v2, …]`.
    case among(ViewField, [ViewValue])
    /// `field contains "term"`, compared folded (``TextFolding``).
    case contains(ViewField, String)
    /// `field startsWith "term"`, compared folded.
    case startsWith(ViewField, String)
    case and([ViewPredicate])
    case or([ViewPredicate])
    case not(ViewPredicate)

    public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
        case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="

        func holds(_ a: ViewValue, _ b: ViewValue) -> Bool {
            switch self {
            case .equal: a == b
            case .notEqual: a != b
            case .less: a < b
            case .lessOrEqual: !(b < a)
            case .greater: b < a
            case .greaterOrEqual: !(a < b)
            }
        }
    }

    /// Every field the predicate reads.
    public var fields: Set<ViewField> {
        switch self {
        case .compare(let field, _, _), .presence(let field, _), .among(let field, _),
             .contains(let field, _), .startsWith(let field, _):
            [field]
        case .and(let terms), .or(let terms): terms.reduce(into: []) { $0.formUnion($1.fields) }
        case .not(let term): term.fields
        }
    }
}

extension ViewPredicate: CustomStringConvertible {
    /// The predicate in the text form it parses from, parenthesised where needed.
    public var description: String { text(inside: .top) }

    private enum Context { case top, and, or, not }

    private func text(inside context: Context) -> String {
        switch self {
        case .compare(let field, let op, let value): return "\(field.name) \(op.rawValue) \(Self.literal(value))"
        case .presence(let field, let present): return "\(field.name) \(present ? "!=" : "=") null"
        case .among(let field, let values): return "\(field.name) in [" + values.map(Self.literal).joined(separator: ", ") + "]"
        case .contains(let field, let term): return "\(field.name) contains \(JSONText.quoted(term))"
        case .startsWith(let field, let term): return "\(field.name) startsWith \(JSONText.quoted(term))"
        case .not(let term): return "not " + term.text(inside: .not)
        case .and(let terms):
            let text = terms.map { $0.text(inside: .and) }.joined(separator: " and ")
            return context == .not ? "(\(text))" : text
        case .or(let terms):
            let text = terms.map { $0.text(inside: .or) }.joined(separator: " or ")
            return context == .top || context == .or ? text : "(\(text))"
        }
    }

    static func literal(_ value: ViewValue) -> String {
        switch value {
        case .integer(let x): String(x)
        case .number(let x): String(x)
        case .text(let x): JSONText.quoted(x)
        }
    }
}

/// Strings in the JSON form the expression language shares.
enum JSONText {
    static func quoted(_ text: String) -> String {
        var out = ""
        appendJSONString(text, to: &out)
        return out
    }
}
