import Foundation
import Logbook

/// The schema drawn as SVG: a box per entity with its attributes (type, optional, indexed,
/// unique), relationships (destination, cardinality, inverse, delete rule) and indexes, and a
/// line per relationship between the boxes, its ends marked `1` or `*`.
///
/// Laid out on a grid, boxes sized from their text (a monospace font of 12 px). Styled with
/// presentation attributes only, so the same markup draws inline in a page and on its own.
struct SchemaDiagram {
    let schema: Schema

    private static let characterWidth = 7.3
    private static let lineHeight = 17
    private static let padding = 10
    /// Room between boxes: across for a relationship's labels, down for the next row.
    private static let gap = 170
    private static let rowGap = 70

    private struct Box {
        var entity: Entity
        var lines: [(text: String, kind: String)]
        var x = 0
        var y = 0
        var width: Int
        var height: Int
        var centerX: Double { Double(x) + Double(width) / 2 }
        var centerY: Double { Double(y) + Double(height) / 2 }
    }

    /// The `<svg>` element.
    var svg: HTML {
        var boxes = schema.entities.map(Self.box)
        let columns = max(1, Int(Double(boxes.count).squareRoot().rounded(.up)))
        var rowTop = Self.rowGap / 2
        var index = 0
        var totalWidth = 0
        while index < boxes.count {
            let row = index..<min(index + columns, boxes.count)
            var x = Self.rowGap / 2
            for i in row {
                boxes[i].x = x
                boxes[i].y = rowTop
                x += boxes[i].width + Self.gap
            }
            totalWidth = max(totalWidth, x)
            rowTop += (row.map { boxes[$0].height }.max() ?? 0) + Self.rowGap
            index = row.upperBound
        }
        let width = max(totalWidth - Self.gap + Self.rowGap / 2, 200)
        let height = max(rowTop - Self.rowGap / 2, 80)
        let edges = HTML.join(relationshipLines(boxes))
        let drawn = HTML.join(boxes.map(Self.draw))
        let names = schema.entities.map(\.name).joined(separator: ", ")
        return """
            <svg xmlns="http://www.w3.org/2000/svg" class="schema" role="img" \
            aria-labelledby="schema-title schema-desc" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="ui-monospace, monospace" font-size="12">\
            <title id="schema-title">Schema version \(Int(schema.version))</title>\
            <desc id="schema-desc">Entities \(names), their attributes, relationships and indexes.</desc>\
            <rect width="100%" height="100%" fill="#ffffff"></rect>\(edges)\(drawn)</svg>
            """
    }

    private static func box(_ entity: Entity) -> Box {
        var lines: [(String, String)] = []
        for attribute in entity.attributes {
            var flags: [String] = []
            if attribute.isOptional { flags.append("optional") }
            if attribute.isUnique {
                flags.append("unique")
            } else if attribute.isIndexed {
                flags.append("indexed")
            }
            lines.append(
                (
                    "\(attribute.name): \(attribute.type)"
                        + (flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]"),
                    "attribute"
                ))
        }
        for relationship in entity.relationships {
            let inverse = relationship.inverse.map { " ↔ \($0)" } ?? ""
            lines.append(
                (
                    "\(relationship.name) → \(relationship.destination) \(relationship.isToMany ? "[*]" : "[1]")\(inverse), \(relationship.deleteRule)",
                    "relationship"
                ))
        }
        for index in entity.indexes {
            lines.append(
                (
                    "\(index.isUnique ? "unique" : "index") (\(index.fields.joined(separator: ", ")))",
                    "index"
                ))
        }
        let longest = max(entity.name.count + 4, lines.map(\.0.count).max() ?? 0)
        return Box(
            entity: entity, lines: lines,
            width: Int(Double(longest) * characterWidth) + 2 * padding,
            height: (lines.count + 1) * lineHeight + 2 * padding - 2)
    }

    private static func draw(_ box: Box) -> HTML {
        let header = lineHeight + padding
        var text: [HTML] = []
        for (i, line) in box.lines.enumerated() {
            let color =
                line.kind == "relationship"
                ? "#1f5f99" : line.kind == "index" ? "#6b4f00" : "#1d1d1d"
            text.append(
                "<text x=\"\(box.x + padding)\" y=\"\(box.y + header + padding + i * lineHeight + 2)\" fill=\"\(color)\">\(line.text)</text>"
            )
        }
        return """
            <g class="entity"><rect x="\(box.x)" y="\(box.y)" width="\(box.width)" height="\(box.height)" \
            rx="6" fill="#f7f9fc" stroke="#44546a" stroke-width="1.5"></rect>\
            <rect x="\(box.x)" y="\(box.y)" width="\(box.width)" height="\(header)" rx="6" fill="#dbe5f1"></rect>\
            <text x="\(box.x + padding)" y="\(box.y + lineHeight + 2)" font-weight="bold" fill="#102a43">\(box.entity.name)</text>\
            \(HTML.join(text))</g>
            """
    }

    /// A line per relationship (one per inverse pair), from box edge to box edge, with the
    /// cardinality at each end.
    private func relationshipLines(_ boxes: [Box]) -> [HTML] {
        var drawn: Set<String> = []
        var lines: [HTML] = []
        for box in boxes {
            for relationship in box.entity.relationships {
                let pair = [
                    box.entity.name + "." + relationship.name,
                    relationship.destination + "." + (relationship.inverse ?? ""),
                ].sorted().joined(separator: "|")
                guard !drawn.contains(pair),
                    let target = boxes.first(where: { $0.entity.name == relationship.destination })
                else { continue }
                drawn.insert(pair)
                let inverse = relationship.inverse.flatMap { target.entity.relationship(named: $0) }
                let nearEnd = inverse.map { $0.isToMany ? "*" : "1" } ?? ""
                let farEnd = relationship.isToMany ? "*" : "1"
                if target.entity.name == box.entity.name {
                    let x = box.x + box.width
                    let y = box.y + 10
                    lines.append(
                        "<path d=\"M\(x) \(y) c40 0 40 30 0 30\" fill=\"none\" stroke=\"#1f5f99\" stroke-width=\"1.5\"></path><text x=\"\(x + 30)\" y=\"\(y + 18)\" fill=\"#1f5f99\">\(farEnd)</text>"
                    )
                    continue
                }
                let (x1, y1) = Self.edge(of: box, toward: target)
                let (x2, y2) = Self.edge(of: target, toward: box)
                let label = relationship.name + (relationship.inverse.map { " / \($0)" } ?? "")
                // The ends' marks 16 px along the line from each box, a little above it.
                let length = max(1, ((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1)).squareRoot())
                let (ux, uy) = ((x2 - x1) / length, (y2 - y1) / length)
                func mark(_ x: Double, _ y: Double, _ text: String) -> HTML {
                    "<text x=\"\(Int(x))\" y=\"\(Int(y) - 5)\" text-anchor=\"middle\" fill=\"#1f5f99\" font-weight=\"bold\">\(text)</text>"
                }
                lines.append(
                    """
                    <g class="relationship"><line x1="\(Int(x1))" y1="\(Int(y1))" x2="\(Int(x2))" y2="\(Int(y2))" \
                    stroke="#1f5f99" stroke-width="1.5"></line>\
                    \(mark(x1 + ux * 16, y1 + uy * 16, nearEnd))\(mark(x2 - ux * 16, y2 - uy * 16, farEnd))\
                    <text x="\(Int((x1 + x2) / 2))" y="\(Int((y1 + y2) / 2) + 16)" text-anchor="middle" fill="#1f5f99">\(label)</text></g>
                    """)
            }
        }
        return lines
    }

    /// Where the line from `box`'s center toward `other`'s center leaves `box`.
    private static func edge(of box: Box, toward other: Box) -> (Double, Double) {
        let dx = other.centerX - box.centerX
        let dy = other.centerY - box.centerY
        guard dx != 0 || dy != 0 else { return (box.centerX, box.centerY) }
        let halfWidth = Double(box.width) / 2
        let halfHeight = Double(box.height) / 2
        let t = min(
            dx == 0 ? .infinity : halfWidth / abs(dx), dy == 0 ? .infinity : halfHeight / abs(dy))
        return (box.centerX + dx * t, box.centerY + dy * t)
    }
}
