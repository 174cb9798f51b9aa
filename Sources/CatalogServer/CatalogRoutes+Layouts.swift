import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// `GET /catalogs/{name}/layout` (attributes or a picture) and `GET /openapi.json`.
extension CatalogRoutes {
    /// Layout attributes for `config`, `width`, `height` (and `offset=x,y`, `visible=true` or
    /// `rect=x,y,w,h` for the elements in a rect, `include=items` for what each one shows); an
    /// SVG picture when the client accepts `image/svg+xml`. Laid out on the layout threads once
    /// per revision, configuration and viewport (``preparedLayouts``), each answer kept per
    /// revision and request; a layout of more than ``maxLayoutElements`` elements is answered
    /// only for what the viewport shows (`visible=true`), and refused otherwise.
    func layout(_ request: Request, name: String) async throws -> Response {
        let query = request.uri.queryParameters
        guard let configText = query["config"] else {
            throw Problem(status: .badRequest, kind: "missing-parameter", detail: "add config=<LAYOUT.json>", path: "config")
        }
        let configuration = try Documents.layoutConfiguration(Data(String(configText).utf8))
        func number(_ key: String) throws -> Double {
            guard let text = query[Substring(key)], let value = Double(String(text)), value.isFinite, value > 0 else {
                throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "\(key) must be a positive number of points", path: key)
            }
            return value
        }
        /// A list of `count` finite numbers such as `0,120` that `valid` accepts, if the parameter is there.
        func numbers(_ key: String, _ count: Int, _ what: String, valid: ([Double]) -> Bool = { _ in true }) throws -> [Double]? {
            guard let text = query[Substring(key)] else { return nil }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double(String($0)) }
            guard parts.count == count, parts.allSatisfy(\.isFinite), valid(parts) else {
                throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "\(key) must be \(what)", path: key)
            }
            return parts
        }
        // `offset=x,y` scrolls; a single integer is a view's window (``ViewParameters``).
        let view = try ViewParameters.definition(of: request, offsetIsScroll: true)
        let scrolled = query["offset"].map { $0.contains(",") } ?? false
        let offset = try (scrolled ? numbers("offset", 2, "x,y such as 0,120") : nil).map { Point(x: $0[0], y: $0[1]) } ?? .zero
        let viewport = Size(width: try number("width"), height: try number("height"))
        let rect = try numbers("rect", 4, "x,y,width,height such as 0,0,390,2532, the size not negative", valid: { $0[2] >= 0 && $0[3] >= 0 })
            .map { Rect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
        // A rect names the elements wanted; `visible` is then beside the point.
        let visible = rect == nil && (query["visible"].map { $0 == "true" || $0 == "1" } ?? false)
        let describe = query["include"].map { $0.split(separator: ",").contains("items") } ?? false
        let picture = request.headers[.accept]?.contains("image/svg+xml") == true
        let revision = try await store.revision(of: name)
        let (store, limit, layoutWork, preparedLayouts) = (self.store, maxLayoutElements, self.layoutWork, self.preparedLayouts)
        let preparedKey = "\(name)\u{0}\(configuration)\u{0}\(viewport)" + (view.map { "\u{0}" + ViewParameters.key($0) } ?? "")
        let key = "\(preparedKey)\u{0}\(offset)\u{0}\(visible)\u{0}\(picture)\u{0}\(String(describing: rect))\u{0}\(describe)"
        let (_, body) = try await layouts.body(for: key, revision: revision) {
            let prepared = try await preparedLayouts.value(for: preparedKey, revision: revision) {
                let stored = try await store.catalog(named: name)
                let catalog = try view.map { try ViewParameters.evaluate($0, on: stored).catalog } ?? stored
                return try await layoutWork.run {
                    let input = LayoutInput(catalog)
                    return PreparedLayout(catalog: catalog, input: input,
                                          layout: try Layout(input, configuration: configuration, viewportSize: viewport))
                }
            }
            return try await layoutWork.run {
                var layout = prepared.layout
                layout.contentOffset = offset
                let elements = rect.map { layout.elements(in: $0) } ?? (visible ? layout.elements(in: layout.visibleRect) : layout.allElements)
                guard elements.count <= limit else {
                    throw Problem(status: .unprocessableContent, kind: "layout-too-large",
                                  detail: "the layout has \(elements.count) elements, more than the \(limit) this server answers at once; "
                                      + "add visible=true (and offset=x,y) for what a viewport shows, or rect=x,y,width,height")
                }
                let text = picture ? LayoutPicture(layout: layout, input: prepared.input, elements: elements).svg
                    : Documents.layout(layout, elements, describing: describe ? prepared.catalog : nil).serialized(pretty: false)
                return (prepared.catalog.revision, ByteBuffer(string: text))
            }
        }
        return buffer(body, type: picture ? "image/svg+xml" : "application/json")
    }

    func openAPIDocument() -> Response {
        buffer(RouteLimits.openAPI, type: "application/json")
    }
}
