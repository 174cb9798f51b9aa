import CatalogModel

extension ViewPredicate {
    /// The longest `where` text accepted, in UTF-8 bytes.
    public static let maximumLength = 4096
    /// How deep parentheses and `not` may nest.
    public static let maximumDepth = 32

    /// Parses the text form (docs/Views.md, "Filter"):
    ///
    /// ```
    /// expression  = term { "or" term }
    /// term        = factor { "and" factor }
    /// factor      = "not" factor | "(" expression ")" | comparison
    /// comparison  = FIELD ( "=" | "!=" | "<" | "<=" | ">" | ">=" ) value
    ///             | FIELD "in" "[" value { "," value } "]"
    ///             | FIELD ( "contains" | "startsWith" ) STRING
    /// value       = STRING | NUMBER | "null"      (null after = and != only)
    /// ```
    ///
    /// Strings are JSON strings in double quotes; numbers are JSON numbers.
    ///
    /// - Throws: ``ViewError`` for the `where` parameter, with the position of the first problem.
    public init(parsing text: String) throws(ViewError) {
        var parser = try PredicateParser(text)
        self = try parser.parse()
    }
}

/// A recursive-descent parser of the `where` language, over the text's characters.
struct PredicateParser {
    enum Token: Equatable {
        case word(String)
        case string(String)
        case number(ViewValue)
        case symbol(String)
        case end

        var described: String {
            switch self {
            case .word(let word): word
            case .string(let string): JSONText.quoted(string)
            case .number(let value): value.text
            case .symbol(let symbol): symbol
            case .end: "end of text"
            }
        }
    }

    private let characters: [Character]
    private var index = 0
    private var token: Token = .end
    /// The 1-based position of `token`.
    private var position = 1
    private var depth = 0
    /// Each field the text names, with its position: what evaluation checks against a catalogue.
    private(set) var fieldPositions: [(ViewField, Int)] = []

    init(_ text: String) throws(ViewError) {
        if text.utf8.count > ViewPredicate.maximumLength {
            throw ViewError(.where, at: ViewPredicate.maximumLength + 1, .tooLong(maximum: ViewPredicate.maximumLength))
        }
        characters = Array(text)
        try advance()
    }

    mutating func parse() throws(ViewError) -> ViewPredicate {
        let predicate = try expression()
        guard token == .end else { throw unexpected("and, or, or the end of the expression") }
        return predicate
    }

    private func unexpected(_ expected: String) -> ViewError {
        ViewError(.where, at: position, .expected(expected, found: token.described))
    }

    private mutating func expression() throws(ViewError) -> ViewPredicate {
        var terms = [try term()]
        while token == .word("or") {
            try advance()
            terms.append(try term())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func term() throws(ViewError) -> ViewPredicate {
        var factors = [try factor()]
        while token == .word("and") {
            try advance()
            factors.append(try factor())
        }
        return factors.count == 1 ? factors[0] : .and(factors)
    }

    private mutating func factor() throws(ViewError) -> ViewPredicate {
        switch token {
        case .word("not"):
            try deeper()
            try advance()
            let inner = try factor()
            depth -= 1
            return .not(inner)
        case .symbol("("):
            try deeper()
            try advance()
            let inner = try expression()
            guard token == .symbol(")") else { throw unexpected(")") }
            try advance()
            depth -= 1
            return inner
        case .word(let name):
            return try comparison(name)
        default:
            throw unexpected("a field, not, or (")
        }
    }

    private mutating func deeper() throws(ViewError) {
        depth += 1
        if depth > ViewPredicate.maximumDepth {
            throw ViewError(.where, at: position, .tooDeep(maximum: ViewPredicate.maximumDepth))
        }
    }

    private mutating func comparison(_ name: String) throws(ViewError) -> ViewPredicate {
        guard let field = ViewField(name: name) else {
            throw ViewError(.where, at: position, .unknownField(name, fields: ViewField.allCases.map(\.name)))
        }
        fieldPositions.append((field, position))
        try advance()
        switch token {
        case .symbol(let symbol):
            guard let op = ViewPredicate.ComparisonOperator(rawValue: symbol) else {
                throw unexpected("an operator (= != < <= > >= in contains startsWith)")
            }
            try advance()
            if token == .word("null") {
                guard op == .equal || op == .notEqual else { throw unexpected("a value (null only after = or !=)") }
                try advance()
                return .presence(field, present: op == .notEqual)
            }
            return .compare(field, op, try value(for: field))
        case .word("in"):
            try advance()
            guard token == .symbol("[") else { throw unexpected("[") }
            try advance()
            var values = [try value(for: field)]
            while token == .symbol(",") {
                try advance()
                values.append(try value(for: field))
            }
            guard token == .symbol("]") else { throw unexpected(", or ]") }
            try advance()
            return .among(field, values)
        case .word(let word) where word == "contains" || word == "startsWith":
            guard field.valueType != .number else {
                throw ViewError(.where, at: position, .notApplicable(field: field.name, detail: "\(word) needs a text field, and \(field.name) is a number"))
            }
            try advance()
            guard case .string(let term) = token else { throw unexpected("a string in double quotes") }
            try advance()
            return word == "contains" ? .contains(field, term) : .startsWith(field, term)
        default:
            throw unexpected("an operator (= != < <= > >= in contains startsWith)")
        }
    }

    /// A literal the field can be compared with.
    private mutating func value(for field: ViewField) throws(ViewError) -> ViewValue {
        let value: ViewValue
        switch (token, field.valueType) {
        case (.number(let number), .number):
            value = number
        case (.string(let text), .text):
            value = .text(text)
        case (.string(let text), .name(let names)):
            guard names.contains(text) else {
                throw ViewError(.where, at: position, .notApplicable(field: field.name, detail: "expected one of " + names.joined(separator: ", ") + ", found " + JSONText.quoted(text)))
            }
            value = .text(text)
        case (.number, _):
            throw ViewError(.where, at: position, .notApplicable(field: field.name, detail: "expected a string in double quotes, found the number \(token.described)"))
        case (.string, .number):
            throw ViewError(.where, at: position, .notApplicable(field: field.name, detail: "expected a number, found the string \(token.described)"))
        default:
            throw unexpected(field.valueType == .number ? "a number" : "a string in double quotes")
        }
        try advance()
        return value
    }

    // MARK: Tokens

    private mutating func advance() throws(ViewError) {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        position = index + 1
        guard index < characters.count else { token = .end; return }
        let c = characters[index]
        if c.isASCII && (c.isLetter || c == "_") {
            let start = index
            while index < characters.count, characters[index].isASCII,
                  characters[index].isLetter || characters[index].isNumber || characters[index] == "_" { index += 1 }
            token = .word(String(characters[start..<index]))
        } else if c == "\"" {
            token = .string(try string())
        } else if c == "-" || c.isASCII && c.isNumber {
            token = .number(try number())
        } else {
            index += 1
            let two = index < characters.count ? String(c) + String(characters[index]) : ""
            switch two {
            case "!=", "<=", ">=":
                index += 1
                token = .symbol(two)
            default:
                guard "=<>()[],".contains(c) else {
                    index -= 1
                    throw ViewError(.where, at: position, .expected("a field, a value, an operator or a parenthesis", found: JSONText.quoted(String(c))))
                }
                token = .symbol(String(c))
            }
        }
    }

    /// A JSON string; `index` is at its opening quote.
    private mutating func string() throws(ViewError) -> String {
        let start = position
        index += 1
        var out = String.UnicodeScalarView()
        while true {
            guard index < characters.count else {
                throw ViewError(.where, at: start, .expected("a closing \" for the string that starts here", found: "end of text"))
            }
            let c = characters[index]
            index += 1
            if c == "\"" { return String(out) }
            guard c == "\\" else {
                if c.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                    throw ViewError(.where, at: index, .expected("an escape (\\n, \\t, \\u…) for a control character", found: "a control character"))
                }
                out.append(contentsOf: c.unicodeScalars)
                continue
            }
            guard index < characters.count else { continue }
            let escape = characters[index]
            index += 1
            switch escape {
            case "\"": out.append("\"")
            case "\\": out.append("\\")
            case "/": out.append("/")
            case "b": out.append("\u{8}")
            case "f": out.append("\u{C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                var value = try hex4()
                if (0xD800...0xDBFF).contains(value) {
                    guard index + 1 < characters.count, characters[index] == "\\", characters[index + 1] == "u" else {
                        throw ViewError(.where, at: index + 1, .expected("the low surrogate \\uDC00…\\uDFFF of a pair", found: "none"))
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw ViewError(.where, at: index - 5, .expected("a low surrogate \\uDC00…\\uDFFF", found: "\\u" + String(low, radix: 16, uppercase: true)))
                    }
                    value = 0x10000 + (value - 0xD800) << 10 + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw ViewError(.where, at: index - 5, .expected("a scalar, not a lone surrogate", found: "\\u" + String(value, radix: 16, uppercase: true)))
                }
                out.append(scalar)
            default:
                throw ViewError(.where, at: index - 1, .expected("an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", found: "\\" + String(escape)))
            }
        }
    }

    private mutating func hex4() throws(ViewError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < characters.count, let digit = characters[index].hexDigitValue else {
                throw ViewError(.where, at: index + 1, .expected("four hexadecimal digits after \\u", found: index < characters.count ? JSONText.quoted(String(characters[index])) : "end of text"))
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A JSON number; an integer when it has no fraction or exponent and fits in an `Int`.
    private mutating func number() throws(ViewError) -> ViewValue {
        let start = index
        func digits() -> Int {
            let from = index
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            return index - from
        }
        if characters[index] == "-" { index += 1 }
        guard digits() > 0 else { throw ViewError(.where, at: index + 1, .expected("a digit", found: index < characters.count ? JSONText.quoted(String(characters[index])) : "end of text")) }
        var integral = true
        if index < characters.count, characters[index] == "." {
            index += 1
            integral = false
            guard digits() > 0 else { throw ViewError(.where, at: index + 1, .expected("a digit after .", found: index < characters.count ? JSONText.quoted(String(characters[index])) : "end of text")) }
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            index += 1
            integral = false
            if index < characters.count, characters[index] == "+" || characters[index] == "-" { index += 1 }
            guard digits() > 0 else { throw ViewError(.where, at: index + 1, .expected("a digit in the exponent", found: index < characters.count ? JSONText.quoted(String(characters[index])) : "end of text")) }
        }
        let text = String(characters[start..<index])
        if integral, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else {
            throw ViewError(.where, at: start + 1, .expected("a finite number", found: text))
        }
        return .number(number)
    }
}
