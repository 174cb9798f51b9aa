/// Why a parser of a document format (JSON, XML or binary property list) stopped: where and how
/// the document is broken, or that it holds more than the limits allow.
package struct ParseFailure: Error {
    package var message: String
    /// The document is over the limits (``DocumentLimits``), not broken.
    package var tooLarge = false

    /// Nesting deeper than this is refused whatever the limits say, so that no document can
    /// exhaust a parser's stack.
    static let maximumDepth = 512

    /// How deep a parser lets documents nest under `limits`.
    static func depthLimit(_ limits: DocumentLimits) -> Int {
        min(max(limits.maxDepth, 1), maximumDepth)
    }

    /// The import error this failure is for `fileName` of `format`.
    func importError(file fileName: String, format: CatalogFileFormat) -> ImportError {
        ImportError(file: fileName, reason: tooLarge ? .tooLarge(message) : .malformed(format: format, detail: message))
    }
}
