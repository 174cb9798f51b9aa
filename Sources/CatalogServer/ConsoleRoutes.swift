import Hummingbird
import HTTPTypes
import NIOCore

/// The browser console (docs/Console.md): the page at `/` and its files under `/console/`, all
/// compiled into the binary (`Sources/CatalogServer/Console`), so that a server copied anywhere
/// serves them and the page works offline.
///
/// The files carry no catalogue data and need no token: the page asks for one when the API
/// answers 401. Every answer forbids what the page never does — scripts, styles, images or
/// connections from another origin, inline scripts, framing — so that a catalogue string that
/// slipped into markup still could not run.
enum ConsoleRoutes {
    /// The console's files by path, with their media types.
    static let files: [String: (type: String, body: ByteBuffer)] = {
        var files: [String: (type: String, body: ByteBuffer)] = [:]
        for (name, text) in EmbeddedConsole.all {
            files["/console/\(name)"] = (mediaType(ofFile: name), ByteBuffer(string: text))
        }
        return files
    }()

    /// Only the server's own files and API: no inline script or style, no other origin.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Whether `path` is one of the console's files (served without a token).
    static func isConsole(_ path: String) -> Bool {
        path == "/" || path == "/index.html" || path.hasPrefix("/console/")
    }

    static func register<Context: RequestContext>(on routes: AuthorizedRoutes<Context>) {
        routes.on(.get, "/") { _, _, _ in try response(for: "/console/index.html") }
        routes.on(.get, "/index.html") { _, _, _ in try response(for: "/console/index.html") }
        routes.on(.get, "/console/:file") { request, _, _ in try response(for: request.uri.path) }
    }

    static func response(for path: String) throws -> Response {
        guard let file = files[path] else {
            throw Problem(status: .notFound, kind: "not-found", detail: "the console has no file \(path)")
        }
        var headers = HTTPFields()
        headers[.contentType] = file.type
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        // The files change with the binary: a browser asks again (cheap: they are in memory).
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
    }

    static func mediaType(ofFile name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
