import CatalogModel

/// Rows for `json_to_recordset(…)`: a JSON array of flat objects, sent as one parameter however
/// many rows there are, with NULLs (absent keys) kept.
struct JSONRecords {
    private var text = "["
    /// How many rows were added.
    private(set) var count = 0

    /// One row's fields, each written once by the caller.
    struct Record {
        fileprivate var text = "{"

        mutating func text(_ key: StaticString, _ value: String?) {
            guard let value else { return }
            separate(key)
            appendJSONString(value, to: &text)
        }

        mutating func integer(_ key: StaticString, _ value: Int?) {
            guard let value else { return }
            separate(key)
            text += String(value)
        }

        private mutating func separate(_ key: StaticString) {
            if text.utf8.count > 1 { text += "," }
            text += "\"\(key)\":"
        }
    }

    /// Appends a row whose fields `fill` writes.
    mutating func append(_ fill: (inout Record) -> Void) {
        var record = Record()
        fill(&record)
        if count > 0 { text += "," }
        text += record.text + "}"
        count += 1
    }

    /// The JSON array.
    var document: String { text + "]" }
}
