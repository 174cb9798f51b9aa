import CatalogImport
import CatalogJSON
import CatalogModel
import CatalogStore
import CatalogViews
import Hummingbird

/// The view a request names by its query parameters (docs/Views.md): `where`, `sort`, `group`,
/// `limit` and `offset`, the same on every route that serves a catalogue.
enum ViewParameters {
    /// The view, nil when the request names none. `offset` is the view's window unless
    /// `offsetIsScroll` says it is a layout's scroll offset `x,y` (two numbers): there a single
    /// integer is the window's.
    static func definition(of request: Request, offsetIsScroll: Bool = false) throws -> ViewDefinition? {
        let query = request.uri.queryParameters
        func text(_ parameter: ViewError.Parameter) -> String? { query[Substring(parameter.rawValue)].map(String.init) }
        var offset = text(.offset)
        if offsetIsScroll, offset?.contains(",") == true { offset = nil }
        let texts = [text(.where), text(.sort), text(.group), text(.limit), offset]
        guard texts.contains(where: { $0 != nil }) else { return nil }
        do {
            return try ViewDefinition(where: texts[0], sort: texts[1], group: texts[2], limit: texts[3], offset: texts[4])
        } catch {
            throw Problem.view(error)
        }
    }

    /// The view of `catalog`, checked against its fields first.
    static func evaluate(_ definition: ViewDefinition, on catalog: Catalog) throws -> ViewResult {
        do {
            try definition.check(against: catalog)
            return try definition.evaluate(on: catalog)
        } catch {
            throw Problem.view(error)
        }
    }

    /// A view's document: the catalogue's native document (as `GET /catalogs/{name}` sends it,
    /// with its revision) followed by `total`, the number of items the filter keeps.
    static func document(_ result: ViewResult) -> String {
        guard case .object(var members) = CatalogExporter.jsonValue(result.catalog, includeRevision: true) else { return "" }
        members.append(("total", .integer(result.total)))
        return OrderedJSON.object(members).serialized(pretty: false)
    }

    /// A short key naming the view, for caches of answers.
    static func key(_ definition: ViewDefinition) -> String {
        ViewError.Parameter.allCases.map { definition.parameters[$0] ?? "" }.joined(separator: "\u{0}")
    }
}

extension Problem {
    /// 400 `invalid-view`: the parameter in `path`, the position in `position`, and for an
    /// unknown field the fields the catalogue's items have in `fields`.
    static func view(_ error: ViewError) -> Problem {
        var problem = Problem(status: .badRequest, kind: "invalid-view", detail: error.description, path: error.parameter.rawValue)
        if let position = error.position { problem.extensions.append(("position", .integer(position))) }
        if case .unknownField(_, let fields) = error.reason {
            problem.extensions.append(("fields", .array(fields.map(OrderedJSON.string))))
        }
        return problem
    }
}
