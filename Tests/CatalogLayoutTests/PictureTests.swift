import CatalogLayout
import CatalogModel
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The SVG picture parses as XML and shows exactly the layout's elements.
@Suite struct PictureTests {
    static let input = LayoutInput(sections: [
        LayoutSectionInput(title: "Classics & <more>", items: (0..<5).map { LayoutItemInput(kind: .book, label: "Book \"\($0)\"") }),
        LayoutSectionInput(title: "Empty", items: []),
        LayoutSectionInput(title: "Icons", items: (0..<3).map { LayoutItemInput(kind: .icon, label: "icon-\($0)") }
                                            + [LayoutItemInput(kind: .icon, label: "bell\u{7}\u{0}\u{FFFF} tab\tend")]),
    ])

    static func rects(_ svg: String) throws -> [XMLElement] {
        let document = try XMLDocument(data: Data(svg.utf8))
        return try document.nodes(forXPath: "//*[local-name()='rect'][@data-kind]").compactMap { $0 as? XMLElement }
    }

    /// An attribute's value (looked up by name: the SVG namespace hides them from `attribute(forName:)`).
    static func attribute(_ element: XMLElement, _ name: String) -> String? {
        element.attributes?.first { $0.name == name || $0.localName == name }?.stringValue
    }

    static func number(_ element: XMLElement, _ name: String) -> Double {
        Double(attribute(element, name) ?? "") ?? .nan
    }

    @Test func hugeCoordinatesAreWrittenAsNumbers() throws {
        // Rounding to two decimals multiplies by 100, which would overflow near the largest Double.
        let layout = try Layout(Self.input, configuration: LayoutConfiguration(style: .flow), viewportSize: Size(width: 390, height: 600),
                                contentOffset: Point(x: 0, y: 1e307))
        let svg = LayoutPicture(layout: layout, input: Self.input).svg
        #expect(!svg.contains("inf") && !svg.contains("nan"))
        #expect(try Self.rects(svg).contains { Self.attribute($0, "data-kind") == "viewport" && Self.number($0, "y") == 1e307 })
    }

    @Test(arguments: LayoutStyle.allCases)
    func pictureShowsEveryElement(style: LayoutStyle) throws {
        let config = LayoutConfiguration(style: style, itemSize: Size(width: 80, height: 120),
                                         sectionInset: Insets(top: 8, left: 8, bottom: 8, right: 8),
                                         headerHeight: 30, footerHeight: 16, pinHeaders: true)
        var layout = try Layout(Self.input, configuration: config, viewportSize: Size(width: 300, height: 260))
        layout.contentOffset = Point(x: style == .carousel ? 95.5 : 0, y: style == .carousel ? 0 : 40)
        let svg = LayoutPicture(layout: layout, input: Self.input).svg
        let rects = try Self.rects(svg)

        let elements = layout.allElements
        let drawn = rects.filter { Self.attribute($0, "data-kind") != "viewport" }
        #expect(drawn.count == elements.count)
        for element in elements {
            let path = "\(element.indexPath.section),\(element.indexPath.item)"
            let match = drawn.first {
                Self.attribute($0, "data-kind") == element.kind.rawValue
                    && Self.attribute($0, "data-index-path") == path
            }
            let rect = try #require(match, "\(element.kind) \(path) is not in the picture")
            let frame = element.visibleFrame
            for (name, value) in [("x", frame.x), ("y", frame.y), ("width", frame.width), ("height", frame.height)] {
                #expect(abs(Self.number(rect, name) - value) <= 0.005, "\(style) \(element.kind) \(path) \(name)")
            }
            if element.kind == .cell { #expect(abs(Self.number(rect, "data-scale") - element.scale) <= 0.005) }
        }
        let viewport = try #require(rects.first { Self.attribute($0, "data-kind") == "viewport" })
        #expect(Self.number(viewport, "y") == layout.contentOffset.y)
        #expect(Self.number(viewport, "width") == 300)

        // Labels, escaped on the way in and read back intact.
        let texts = try XMLDocument(data: Data(svg.utf8)).nodes(forXPath: "//*[local-name()='text']").compactMap(\.stringValue)
        #expect(texts.contains("icon-2"))
        if style == .flow || style == .shelf || style == .waterfall {
            #expect(texts.contains("Classics & <more>"))
        }
        #expect(texts.contains { $0.hasPrefix("Book \"") })
        // Characters XML cannot carry at all are replaced, the rest kept (labels are cut to fit their cells).
        #expect(texts.contains { $0.hasPrefix("bell\u{FFFD}\u{FFFD}\u{FFFD} t") })
        if style == .shelf {
            #expect(drawn.filter { Self.attribute($0, "data-kind") == "decoration" }.count == 2)
        }
        if style == .carousel {
            #expect(drawn.contains { Self.number($0, "data-scale") < 1 })
        }
    }
}
