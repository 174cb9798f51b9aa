import Foundation
import JWTKit

/// Bearer JWTs signed by a team's own backend or identity provider (`catalog serve --jwt-key`),
/// verified with vapor's jwt-kit against PEM public keys (ES256, RS256, EdDSA).
///
/// A token is accepted when its header names an algorithm of a loaded key (never `none`, never
/// an HMAC: a public key is no secret), its signature checks, `exp` is in the future and `nbf`,
/// if present, in the past (each with ``leeway``), `aud` names ``audience`` when one is set, and
/// `scope` holds at least one of `catalogs:read`, `catalogs:write`, `catalogs:admin`
/// (space-separated, as OAuth writes it; the highest counts). An optional `catalogs` claim, an
/// array of names (`"*"` for all), limits the catalogues it reaches.
///
/// A verified token is kept until it expires (at most ``cacheLimit`` of them), so a client that
/// sends the same token with every request pays for one signature check.
public final class JWTVerifier: Sendable {
    /// Clock skew tolerated on `exp` and `nbf`.
    public static let leeway: TimeInterval = 60
    /// Tokens longer than this are refused before they are parsed.
    public static let maxTokenLength = 16 << 10
    static let cacheLimit = 4_096

    /// Each key in a collection of its own (as its default), with its `alg`: a token is tried
    /// against every key of its algorithm, whatever `kid` it names.
    let keys: [(alg: String, collection: JWTKeyCollection)]
    /// The `alg` names of the loaded keys.
    let algorithms: Set<String>
    public let audience: String?
    private let verified = BoundedCache<String, (grant: AccessGrant, expires: Date)>(limit: JWTVerifier.cacheLimit)

    /// The keys in `pems` (each text one or more `PUBLIC KEY` blocks); the error says which file and why.
    public init(pems: [(file: String, text: String)], audience: String?) async throws(JWTKeyError) {
        var keys: [(alg: String, collection: JWTKeyCollection)] = []
        for (file, text) in pems {
            let blocks = Self.pemBlocks(text)
            guard !blocks.isEmpty else { throw JWTKeyError(file: file, reason: "holds no -----BEGIN PUBLIC KEY----- block") }
            for block in blocks {
                if block.contains("PRIVATE KEY") {
                    throw JWTKeyError(file: file, reason: "holds a private key: give the server the public key only")
                }
                let collection = JWTKeyCollection()
                if let key = try? ES256PublicKey(pem: block) {
                    keys.append(("ES256", await collection.add(ecdsa: key)))
                } else if let key = try? EdDSA.PublicKey(pem: block) {
                    keys.append(("EdDSA", await collection.add(eddsa: key)))
                } else if let key = try? Insecure.RSA.PublicKey(pem: block) {
                    keys.append(("RS256", await collection.add(rsa: key, digestAlgorithm: .sha256)))
                } else {
                    throw JWTKeyError(file: file, reason: "holds a key that is not an ES256 (P-256), RS256 (RSA) or EdDSA (Ed25519) public key")
                }
            }
        }
        self.keys = keys
        self.algorithms = Set(keys.map(\.alg))
        self.audience = audience
    }

    /// The grant of a verified `token`, or why it is refused (one reason a client can act on).
    public func grant(for token: String, now: Date = Date()) async -> Result<AccessGrant, JWTRefusal> {
        if let kept = verified[token] {
            return kept.expires.addingTimeInterval(Self.leeway) > now ? .success(kept.grant) : .failure(.init("the token has expired (exp)"))
        }
        guard token.utf8.count <= Self.maxTokenLength else {
            return .failure(.init("the token is \(token.utf8.count) bytes, more than the \(Self.maxTokenLength) this server reads"))
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.base64URLDecoded(parts[0]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any] else {
            return .failure(.init("the token is not a JWT (three base64url parts, a JSON header)"))
        }
        guard let alg = header["alg"] as? String, algorithms.contains(alg) else {
            let given = (header["alg"] as? String).map { "\"\($0)\"" } ?? "no alg"
            return .failure(.init("the token is signed with \(given); this server accepts \(algorithms.sorted().joined(separator: ", "))"))
        }
        var checked: CatalogClaims? = nil
        var failure: (any Error)? = nil
        for key in keys where key.alg == alg {
            do {
                checked = try await key.collection.verify(token, as: CatalogClaims.self)
                break
            } catch {
                failure = error
            }
        }
        guard let claims = checked else { return .failure(.init(Self.describe(failure ?? JWTError.signatureVerificationFailed))) }
        switch claims.check(audience: audience, now: now) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let grant):
            if let exp = claims.exp { verified[token] = (grant, Date(timeIntervalSince1970: exp)) }
            return .success(grant)
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? JWTError {
            switch error.errorType {
            case .signatureVerificationFailed: return "the token's signature does not check against this server's keys"
            case .malformedToken: return "the token is not a well-formed JWT"
            default: break
            }
        }
        if error is DecodingError { return "the token's claims are not as this server reads them: \(String(describing: error).prefix(200))" }
        return "the token's signature does not check against this server's keys"
    }

    /// The blocks `-----BEGIN …----- … -----END …-----` of a PEM text.
    static func pemBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]? = nil
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("-----BEGIN ") { current = [Substring(trimmed)] } else if var lines = current {
                lines.append(Substring(trimmed))
                if trimmed.hasPrefix("-----END ") {
                    blocks.append(lines.joined(separator: "\n") + "\n")
                    current = nil
                } else {
                    current = lines
                }
            }
        }
        return blocks
    }

    static func base64URLDecoded(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }
}

/// A key file `--jwt-key` cannot use.
public struct JWTKeyError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var reason: String
    public var description: String { "\(file): \(reason)" }
}

/// Why a JWT is refused.
public struct JWTRefusal: Error, Sendable, Equatable {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The claims CatalogKit reads from a JWT. Each is decoded loosely and checked in
/// ``check(audience:now:)``, so that a wrong claim gets a reason of its own, not a decoding error.
struct CatalogClaims: JWTPayload {
    var exp: Double?
    var nbf: Double?
    var sub: String?
    var aud: Loose?
    var scope: Loose?
    var catalogs: Loose?

    /// A claim's JSON value as far as this server cares.
    enum Loose: Codable, Sendable {
        case string(String)
        case strings([String])
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self = .string(text) } else if let list = try? container.decode([String].self) { self = .strings(list) } else { self = .other }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .strings(let list): try container.encode(list)
            case .other: try container.encodeNil()
            }
        }
    }

    enum CodingKeys: String, CodingKey { case exp, nbf, sub, aud, scope, catalogs }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        exp = try? container.decodeIfPresent(Double.self, forKey: .exp)
        nbf = try? container.decodeIfPresent(Double.self, forKey: .nbf)
        sub = try? container.decodeIfPresent(String.self, forKey: .sub)
        aud = try container.decodeIfPresent(Loose.self, forKey: .aud)
        scope = try container.decodeIfPresent(Loose.self, forKey: .scope)
        catalogs = try container.decodeIfPresent(Loose.self, forKey: .catalogs)
    }

    /// Checked after the signature, below.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    func check(audience: String?, now: Date) -> Result<AccessGrant, JWTRefusal> {
        let seconds = now.timeIntervalSince1970
        guard let exp, exp.isFinite else { return .failure(.init("the token has no exp claim: this server takes only tokens that expire")) }
        guard exp + JWTVerifier.leeway > seconds else { return .failure(.init("the token has expired (exp)")) }
        if let nbf {
            guard nbf.isFinite, nbf - JWTVerifier.leeway <= seconds else { return .failure(.init("the token is not valid yet (nbf)")) }
        }
        if let audience {
            let given: [String] = switch aud {
            case .string(let one): [one]
            case .strings(let list): list
            default: []
            }
            guard given.contains(audience) else {
                return .failure(.init("the token's aud does not name this server's audience (\(audience))"))
            }
        }
        guard case .string(let text) = scope else {
            return .failure(.init("the token has no scope claim (a string such as \"catalogs:read catalogs:write\")"))
        }
        guard let scope = text.split(separator: " ").compactMap({ $0.hasPrefix("catalogs:") ? AccessScope(name: $0) : nil }).max() else {
            return .failure(.init("the token's scope names none of catalogs:read, catalogs:write, catalogs:admin"))
        }
        var reached: Set<String>? = nil
        switch catalogs {
        case nil: break
        case .strings(let names): reached = names.contains("*") ? nil : Set(names)
        default: return .failure(.init("the token's catalogs claim must be an array of catalogue names (\"*\" for all)"))
        }
        return .success(AccessGrant(holder: sub.map { "jwt \($0)" } ?? "jwt", scope: scope, catalogs: reached))
    }
}
