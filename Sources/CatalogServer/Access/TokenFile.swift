import Crypto
import Foundation

/// Named static tokens, stored only as SHA-256 hashes (`catalog serve --token-file FILE`).
///
/// One token a line, fields separated by spaces or tabs; `#` starts a comment:
///
/// ```
/// # name   sha-256 of the token (64 hex digits)                            scope  catalogues
/// reader   4b227777d4dd1fc61c6f884f48641d02b4d121d3fd328cb08b5531fcacdabf8a  read
/// app      ef2d127de37b942baad06145e54b0c619a1f22327b2ebbcfbec78f5564afe39d  write  bookshelf,home
/// ops      e7f6c011776e8db7cd330b54174fd76f7d0216b612387a5ffcfb81e6f0919683  admin  *
/// ```
///
/// The scope is `read`, `write` or `admin` (each includes the ones before it); the catalogues, a
/// comma-separated list of names (percent-encoded where a name holds a space or a comma), or `*`
/// or nothing for all. Names and hashes are unique. The server never holds a token itself, so
/// the file may be read by more people than the tokens are given to; `catalog token` makes a
/// token and its line.
public struct TokenFile: Sendable, Equatable {
    /// Grants by the SHA-256 of their token.
    public var grants: [TokenHash: AccessGrant]

    public init(grants: [TokenHash: AccessGrant] = [:]) { self.grants = grants }

    /// A token file's text read; the error names the line and what is wrong with it.
    public init(parsing text: String) throws(TokenFileError) {
        var grants: [TokenHash: AccessGrant] = [:]
        var names = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            func fail(_ reason: String) -> TokenFileError { TokenFileError(line: index + 1, reason: reason) }
            guard fields.count == 3 || fields.count == 4 else {
                throw fail("expected NAME SHA256 SCOPE [CATALOGUES], found \(fields.count) field\(fields.count == 1 ? "" : "s")")
            }
            let name = String(fields[0])
            guard let hash = TokenHash(hex: fields[1]) else {
                throw fail("the second field must be the token's SHA-256 as 64 hex digits, found \(fields[1].count) characters")
            }
            guard let scope = AccessScope(name: fields[2]) else {
                throw fail("the scope must be read, write or admin, found \"\(fields[2])\"")
            }
            var catalogs: Set<String>? = nil
            if fields.count == 4, fields[3] != "*" {
                var named = Set<String>()
                for part in fields[3].split(separator: ",", omittingEmptySubsequences: false) {
                    guard !part.isEmpty, let decoded = part.removingPercentEncoding, !decoded.isEmpty else {
                        throw fail("the catalogues must be names separated by commas (percent-encoded), or *; found \"\(fields[3])\"")
                    }
                    named.insert(decoded)
                }
                catalogs = named
            }
            guard names.insert(name).inserted else { throw fail("the name \(name) is on an earlier line too") }
            guard grants[hash] == nil else { throw fail("the hash of \(name)'s token is on an earlier line too") }
            grants[hash] = AccessGrant(holder: name, scope: scope, catalogs: catalogs)
        }
        self.grants = grants
    }

    /// The file at `path` read.
    public init(contentsOf path: String) throws(TokenFileError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw TokenFileError(line: 0, reason: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw TokenFileError(line: 0, reason: "is not UTF-8 text") }
        try self.init(parsing: text)
    }

    /// The grant of `token`, if the file holds its hash.
    public func grant(for token: String) -> AccessGrant? { grants[TokenHash(of: token)] }

    /// A token's SHA-256 as lowercase hex, as the file holds it.
    public static func hash(_ token: String) -> String { TokenHash(of: token).hex }

    /// A new random token (32 bytes from the system's generator, base64url) and its line.
    public static func newToken(name: String, scope: AccessScope, catalogs: [String]?) -> (token: String, line: String) {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        let token = "ck_" + bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let names = catalogs.map { $0.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: ",") } ?? "*"
        return (token, "\(name)\t\(hash(token))\t\(scope.name)\t\(names)")
    }
}

/// The SHA-256 of a token, as the server keeps it: 32 bytes compared and hashed as four words,
/// so that looking a presented token up costs its digest and one dictionary probe.
public struct TokenHash: Hashable, Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64)

    /// The SHA-256 of `token`'s UTF-8 bytes.
    public init(of token: String) {
        var token = token
        let digest = token.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        words = digest.withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }

    /// 64 hex digits (either case); nil for anything else.
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            guard let high = Self.value(of: digits[2 * index]), let low = Self.value(of: digits[2 * index + 1]) else { return nil }
            bytes[index] = high << 4 | low
        }
        words = bytes.withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }

    /// Lowercase hex, as a token file holds it.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var copy = words
        return withUnsafeBytes(of: &copy) { bytes in
            String(unsafeUninitializedCapacity: 64) { buffer in
                for (index, byte) in bytes.enumerated() {
                    buffer[2 * index] = digits[Int(byte >> 4)]
                    buffer[2 * index + 1] = digits[Int(byte & 15)]
                }
                return 64
            }
        }
    }

    public static func == (a: TokenHash, b: TokenHash) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Why a token file cannot be used: its line (0 for the file as a whole) and the reason.
public struct TokenFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String

    public var description: String { line == 0 ? reason : "line \(line): \(reason)" }
}
