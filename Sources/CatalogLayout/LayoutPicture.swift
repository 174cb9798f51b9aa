import CatalogDiff
import CatalogModel

/// An SVG picture of a layout for people to look at: every cell labelled with its title or icon
/// name, headers and footers with their section's title, shelf boards behind the books, carousel
/// cells drawn at their scale, and the viewport outlined at the current offset.
///
/// Every element is an SVG `rect` carrying `data-kind`, `data-index-path` and (for cells)
/// `data-scale`, so tools and tests can read the picture back.
public struct LayoutPicture: Sendable {
    public var layout: Layout
    public var input: LayoutInput
    /// The elements drawn: all of the layout's, or those of a rect query (what a viewport shows).
    public var elements: [LayoutAttributes]
    /// Empty space around the content, in points.
    public var margin: Double = 20

    public init(layout: Layout, input: LayoutInput, elements: [LayoutAttributes]? = nil) {
        self.layout = layout
        self.input = input
        self.elements = elements ?? layout.allElements
    }

    /// The picture as an SVG document.
    public var svg: String {
        let content = layout.contentSize
        let viewport = layout.visibleRect
        // The canvas holds both the content and the viewport (which may be scrolled past an edge).
        let bounds = Rect(x: 0, y: 0, width: content.width, height: content.height).union(viewport)
        let box = Rect(x: bounds.x - margin, y: bounds.y - margin - 24,
                       width: bounds.width + 2 * margin, height: bounds.height + 2 * margin + 24)
        var out = ""
        out.reserveCapacity(256 + elements.count * 260)
        out += ##"<?xml version="1.0" encoding="UTF-8"?>"## + "\n"
        out += ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(n(box.width))" height="\##(n(box.height))" "##
        out += ##"viewBox="\##(n(box.x)) \##(n(box.y)) \##(n(box.width)) \##(n(box.height))" font-family="Helvetica, Arial, sans-serif">"## + "\n"
        let caption = "\(layout.style.rawValue) layout · \(plural(layout.numberOfItems, "item")) in \(plural(layout.numberOfSections, "section")) · "
            + "content \(n(content.width))×\(n(content.height)) · viewport \(n(viewport.width))×\(n(viewport.height)) at \(layout.contentOffset)"
        out += "<title>\(escape(caption))</title>\n"
        out += ##"<rect class="background" x="\##(n(box.x))" y="\##(n(box.y))" width="\##(n(box.width))" height="\##(n(box.height))" fill="#f7f7f5"/>"## + "\n"
        out += ##"<rect class="content" x="0" y="0" width="\##(n(content.width))" height="\##(n(content.height))" fill="#ffffff" stroke="#d0d0d0"/>"## + "\n"
        out += ##"<text x="\##(n(box.x + margin))" y="\##(n(box.y + 18))" font-size="13" fill="#333">\##(escape(caption))</text>"## + "\n"

        // Back to front, as UIKit stacks them: decorations, cells, then headers and footers.
        let elements = self.elements.enumerated().sorted { a, b in
            a.element.zIndex != b.element.zIndex ? a.element.zIndex < b.element.zIndex : a.offset < b.offset
        }.map(\.element)
        for element in elements {
            switch element.kind {
            case .decoration: drawShelf(element, into: &out)
            case .cell: drawCell(element, into: &out)
            case .header, .footer: drawSupplementary(element, into: &out)
            }
        }
        out += ##"<rect class="viewport" data-kind="viewport" x="\##(n(viewport.x))" y="\##(n(viewport.y))" width="\##(n(viewport.width))" height="\##(n(viewport.height))" fill="none" stroke="#e0342b" stroke-width="2" stroke-dasharray="8 4"/>"## + "\n"
        out += ##"<text x="\##(n(viewport.x + 4))" y="\##(n(viewport.y - 4))" font-size="11" fill="#e0342b">viewport</text>"## + "\n"
        out += "</svg>\n"
        return out
    }

    private func label(_ path: ItemPath) -> String {
        input.item(at: path)?.label ?? ""
    }

    private func kind(_ path: ItemPath) -> ItemKind? {
        input.item(at: path)?.kind
    }

    private func attributes(_ element: LayoutAttributes, _ frame: Rect) -> String {
        ##"data-kind="\##(element.kind.rawValue)" data-index-path="\##(element.indexPath.section),\##(element.indexPath.item)" "##
            + ##"x="\##(n(frame.x))" y="\##(n(frame.y))" width="\##(n(frame.width))" height="\##(n(frame.height))""##
    }

    private func drawShelf(_ element: LayoutAttributes, into out: inout String) {
        let f = element.frame
        out += ##"<rect class="decoration" \##(attributes(element, f)) fill="#efe2cf"/>"## + "\n"
        // The board the books stand on.
        out += ##"<rect x="\##(n(f.x))" y="\##(n(f.maxY - 6))" width="\##(n(f.width))" height="6" fill="#8b5a2b"/>"## + "\n"
    }

    private func drawCell(_ element: LayoutAttributes, into out: inout String) {
        let f = element.visibleFrame
        let (fill, stroke) = switch kind(element.indexPath) {
        case .video?: ("#dbe8f7", "#4a7fc1")
        case .book?: ("#f3d9c6", "#a0522d")
        case .icon?: ("#d8f0de", "#2e8b57")
        case nil: ("#e6e6e6", "#888888")
        }
        if element.scale != 1 {
            // The untransformed frame, faint, so the scaling shows.
            let u = element.frame
            out += ##"<rect x="\##(n(u.x))" y="\##(n(u.y))" width="\##(n(u.width))" height="\##(n(u.height))" fill="none" stroke="#cccccc" stroke-dasharray="3 3"/>"## + "\n"
        }
        out += ##"<rect class="cell" \##(attributes(element, f)) data-scale="\##(n(element.scale))" rx="4" fill="\##(fill)" stroke="\##(stroke)"/>"## + "\n"
        let text = label(element.indexPath)
        let fontSize = max(6, min(12, f.height / 3)) * (element.scale < 1 ? max(0.6, element.scale) : 1)
        // About 0.55 em per character: cut the label to the cell's width (no label is longer
        // than a few hundred characters, so the bound only keeps the conversion total).
        let room = (f.width - 6) / (fontSize * 0.55)
        let fits = room >= 1 ? Int(min(room, 10_000)) : 1
        let shown = text.count > fits ? String(text.prefix(max(1, fits - 1))) + "…" : text
        out += ##"<text x="\##(n(f.midX))" y="\##(n(f.midY + fontSize / 3))" font-size="\##(n(fontSize))" text-anchor="middle" fill="#222">\##(escape(shown))</text>"## + "\n"
    }

    private func drawSupplementary(_ element: LayoutAttributes, into out: inout String) {
        let f = element.frame
        let isHeader = element.kind == .header
        let section = element.indexPath.section
        let title = section < input.numberOfSections ? input.title(ofSection: section) : ""
        out += ##"<rect class="\##(element.kind.rawValue)" \##(attributes(element, f)) fill="\##(isHeader ? "#3b4252" : "#aab2bf")"/>"## + "\n"
        let text = isHeader ? title : "end of \(title)"
        let fontSize = max(6, min(13, f.height * 0.45, f.width * 0.45))
        out += ##"<text x="\##(n(f.x + 8))" y="\##(n(f.midY + fontSize / 3))" font-size="\##(n(fontSize))" fill="\##(isHeader ? "#ffffff" : "#222222")">\##(escape(text))</text>"## + "\n"
    }

    /// Numbers with at most two decimals: pictures need no more.
    /// Two decimals at most (a number too large for that as it is: `value * 100` could overflow).
    private func n(_ value: Double) -> String {
        format(abs(value) < 1e15 ? (value * 100).rounded() / 100 : value)
    }

    /// Text for XML: markup characters as entities, and the characters XML 1.0 does not allow at
    /// all, even as references (control characters other than tab and line breaks, U+FFFE and
    /// U+FFFF), as U+FFFD, so that a title with a stray control character still gives a picture.
    private func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
