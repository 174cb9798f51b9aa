import Foundation
import Hummingbird
import HTTPTypes

/// Which `Host` names and browser origins the server answers (docs/HTTP-API.md, "Security").
///
/// A web page the user visits can send requests to a server on the user's machine. Two checks
/// keep it out:
/// - **Host.** A page on a rebound DNS name (`evil.example`, resolving to 127.0.0.1 a moment
///   after the page loaded) is same-origin with the server, so the browser lets it read every
///   answer; only the name it sends in `Host` gives it away. The server answers a loopback name
///   (`localhost`, `*.localhost`), an IP literal (no DNS name, so nothing to rebind: the page is
///   served from that very address) and the names in ``allowedHosts``; any other `Host` gets a
///   421 and nothing else. A request without `Host` (HTTP/1.0 tools) comes from no browser.
/// - **Origin.** A page on another origin can send a "simple" POST (`text/plain`, no preflight)
///   that the server would act on even though the page never reads the answer. A request that
///   changes data from a browser context other than the server's own origin or one in
///   ``allowedOrigins`` (its `Origin`, or `Sec-Fetch-Site: cross-site`/`same-site` without one) is
///   refused with 403, and a POST body must be JSON (415 otherwise), which no simple request
///   can send. Clients that are not browsers send neither header and pass.
///
/// An allowed origin also gets CORS: its preflights are answered and its answers readable.
public struct BrowserPolicy: Sendable, Equatable {
    /// Host names answered besides loopback names and IP literals, lowercased; `*` answers every
    /// name (a server behind a proxy that checks names itself).
    public var allowedHosts: Set<String>
    /// Origins (`https://console.example.com`) whose pages may change data and read answers.
    public var allowedOrigins: Set<String>

    public init(allowedHosts: [String] = [], allowedOrigins: [String] = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedOrigins = Set(allowedOrigins.map { Self.normalizedOrigin($0) ?? $0.lowercased() })
    }

    /// Why `name` cannot be an allowed host, if it cannot.
    public static func problem(withHost name: String) -> String? {
        if name == "*" { return nil }
        if name.isEmpty || name.contains(where: { $0 == "/" || $0 == ":" && !name.hasPrefix("[") || $0 == " " }) {
            return "expected a host name such as catalog.example.com (no scheme, port or path), found \"\(name)\""
        }
        return nil
    }

    /// Why `origin` cannot be an allowed origin, if it cannot.
    public static func problem(withOrigin origin: String) -> String? {
        normalizedOrigin(origin) == nil ? "expected an origin such as https://console.example.com (scheme, host, optional port; no path), found \"\(origin)\"" : nil
    }

    // MARK: Decisions

    /// Whether a request whose `Host` header is `host` is answered.
    func answers(host: String?) -> Bool {
        guard let host else { return true }
        guard let name = Self.hostName(ofAuthority: host) else { return false }
        if allowedHosts.contains("*") || allowedHosts.contains(name) { return true }
        return Self.isLoopbackName(name) || Self.isIPLiteral(name)
    }

    /// Whether `origin` (an `Origin` header) is the server's own, as reached through `host`.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let origin = normalizedOrigin(origin), let separator = origin.range(of: "://") else { return false }
        let scheme = String(origin[..<separator.lowerBound])
        // The Host header carries no scheme: a proxy that terminates TLS forwards an https page's
        // requests with a bare name, which the scheme's default port matches.
        return normalizedAuthority(host, scheme: scheme) == String(origin[separator.upperBound...])
    }

    func allows(origin: String) -> Bool {
        guard let normalized = Self.normalizedOrigin(origin) else { return false }
        return allowedOrigins.contains(normalized)
    }

    // MARK: Parsing

    /// `scheme://host[:port]`, lowercased, without a default port; nil for anything else
    /// (a path, `null`, another scheme).
    static func normalizedOrigin(_ text: String) -> String? {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") { scheme = "http" } else if lower.hasPrefix("https://") { scheme = "https" } else { return nil }
        let authority = String(lower.dropFirst(scheme.count + 3))
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@"),
              let normalized = normalizedAuthority(authority, scheme: scheme) else { return nil }
        return "\(scheme)://\(normalized)"
    }

    /// `host[:port]` lowercased, the port left out when it is the scheme's default.
    static func normalizedAuthority(_ authority: String, scheme: String?) -> String? {
        guard let name = hostName(ofAuthority: authority) else { return nil }
        let lower = authority.lowercased()
        var port: Substring? = nil
        if lower.hasPrefix("[") {
            if let end = lower.firstIndex(of: "]"), lower.index(after: end) < lower.endIndex, lower[lower.index(after: end)] == ":" {
                port = lower[lower.index(end, offsetBy: 2)...]
            }
        } else if let colon = lower.firstIndex(of: ":") {
            port = lower[lower.index(after: colon)...]
        }
        if let given = port {
            guard !given.isEmpty, given.count <= 5, given.allSatisfy(\.isASCII), given.allSatisfy(\.isNumber) else { return nil }
        }
        let host = name.contains(":") ? "[\(name)]" : name
        switch (scheme, port) {
        case (_, nil), ("http", "80"), ("https", "443"): return host
        case (_, let given?): return "\(host):\(given)"
        }
    }

    /// The name in a `Host` value (`localhost:8080` → `localhost`, `[::1]:80` → `::1`), lowercased,
    /// without a trailing dot; nil when it is not a name.
    static func hostName(ofAuthority authority: String) -> String? {
        let lower = authority.lowercased()
        var name: Substring
        if lower.hasPrefix("[") {
            guard let end = lower.firstIndex(of: "]") else { return nil }
            name = lower[lower.index(after: lower.startIndex)..<end]
        } else {
            name = lower.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty, name.utf8.count <= 253,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == ":" || $0 == "_") }) else { return nil }
        return String(name)
    }

    /// `localhost` and its subdomains, which browsers resolve to loopback themselves (RFC 6761).
    static func isLoopbackName(_ name: String) -> Bool {
        name == "localhost" || name.hasSuffix(".localhost")
    }

    /// An IPv4 address in dotted form or an IPv6 address: no DNS name, so nothing to rebind.
    static func isIPLiteral(_ name: String) -> Bool {
        if name.contains(":") { return name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) && Int(part).map { $0 <= 255 } == true
        }
    }
}

/// The checks of ``BrowserPolicy`` on every request, before any route runs; CORS for allowed
/// origins.
struct BrowserPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: BrowserPolicy

    static var secFetchSite: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }

    /// The headers a page of an allowed origin may send, and read.
    static var allowedRequestHeaders: String { "Authorization, Content-Type, If-Match, If-None-Match, Last-Event-ID, Catalog-Client-ID, Catalog-Client-Sequence, Catalog-Fingerprint" }
    static var exposedHeaders: String { "ETag, Retry-After, Catalog-Replayed, WWW-Authenticate" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let host = request.head.authority
        guard policy.answers(host: host) else {
            throw Problem(status: .misdirectedRequest, kind: "unknown-host",
                          detail: "this server does not answer for the host \(Self.quoted(host ?? "")); start it with --allowed-host NAME to serve that name")
        }
        let origin = request.headers[.origin]
        let fromAllowedOrigin = origin.map { policy.allows(origin: $0) } ?? false
        if request.method == .options, let origin {
            guard fromAllowedOrigin else {
                throw Problem(status: .forbidden, kind: "cross-origin",
                              detail: "the origin \(Self.quoted(origin)) may not call this server; start it with --allowed-origin ORIGIN to let that origin's pages in")
            }
            var headers = corsHeaders(origin)
            headers[.accessControlAllowMethods] = "GET, HEAD, POST, PUT, DELETE"
            headers[.accessControlAllowHeaders] = Self.allowedRequestHeaders
            headers[.accessControlMaxAge] = "600"
            return Response(status: .noContent, headers: headers)
        }
        let changes = !(request.method == .get || request.method == .head || request.method == .options)
        if changes {
            if let origin {
                guard fromAllowedOrigin || BrowserPolicy.isSameOrigin(origin, host: host) else {
                    throw Problem(status: .forbidden, kind: "cross-origin",
                                  detail: "a page of \(Self.quoted(origin)) may not change data here; start the server with --allowed-origin ORIGIN to let that origin's pages write")
                }
            } else if let site = request.headers[Self.secFetchSite]?.lowercased(), site == "cross-site" || site == "same-site" {
                throw Problem(status: .forbidden, kind: "cross-origin",
                              detail: "a page of another site may not change data here (Sec-Fetch-Site: \(site))")
            }
            if request.method == .post, !Self.isJSON(request.headers[.contentType]) {
                let given = request.headers[.contentType].map { "not \(Self.quoted($0))" } ?? "not a body without Content-Type"
                throw Problem(status: .unsupportedMediaType, kind: "unsupported-media-type",
                              detail: "send the body as Content-Type: application/json, \(given)")
            }
        }
        guard let origin, fromAllowedOrigin else { return try await next(request, context) }
        var response = try await next(request, context)
        response.headers.append(contentsOf: corsHeaders(origin))
        return response
    }

    func corsHeaders(_ origin: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = Self.exposedHeaders
        headers[.vary] = "Origin"
        return headers
    }

    /// `application/json` or any `+json` type, parameters aside.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    /// A header value for a message: quoted, at most 100 characters, control characters escaped.
    static func quoted(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(100).map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        return "\"\(shown)\(text.unicodeScalars.count > 100 ? "…" : "")\""
    }
}
