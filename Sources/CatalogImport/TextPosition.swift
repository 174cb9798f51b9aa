/// Where a byte offset lies in a UTF-8 text, as a person counts: line and column, both from 1,
/// the column in characters. Errors of the text formats (JSON, XML property lists) name it.
struct TextPosition: CustomStringConvertible {
    var line: Int
    var column: Int

    /// The position of `offset` in `bytes` (clamped to their end).
    init(of offset: Int, in bytes: UnsafeRawBufferPointer) {
        var line = 1
        var lineStart = 0
        let end = min(max(offset, 0), bytes.count)
        for position in 0..<end where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        self.line = line
        self.column = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[lineStart..<end]), as: UTF8.self).count + 1
    }

    var description: String { "line \(line), column \(column)" }
}
