import Foundation
import TestSupport
import Testing

@testable import logbook

/// Plain, accessible HTML on every view, as served (that is, with JavaScript off): a language,
/// a skip link to the main part, one `h1`, every field labelled, every picture named, every
/// table with headers, and navigation by links and forms alone (no inline script or handler,
/// no `javascript:` URL, no element made clickable by script).
@Suite struct StudioAccessibilityTests {
    static let views = [
        "/", "/schema", "/entity", "/entity/Employee", "/entity/Employee?sort=salary&desc=1",
        "/entity/Employee?where=designation%20%3D%3D%20%27Engineer%27", "/entity/Employee/1",
        "/entity/Company/1", "/entity/Contact/1", "/history", "/history/5", "/log",
    ]

    @Test(arguments: [false, true]) func everyViewIsPlainAccessibleHTML(writable: Bool) throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start(writable: writable)
        defer { studio.stop() }
        for view in Self.views {
            let page = try studio.get(view)
            #expect(page.status == 200, "\(view)")
            let html = page.text
            #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"), "\(view)")
            #expect(html.contains("<title>") && !html.contains("<title></title>"), "\(view)")
            #expect(html.contains(##"<a class="skip" href="#main">"##), "\(view)")
            #expect(html.contains(#"<main id="main""#), "\(view)")
            #expect(html.components(separatedBy: "<h1").count == 2, "\(view): one h1")
            #expect(html.contains(#"<nav aria-label="Views">"#), "\(view)")
            for forbidden in [" onclick=", " onload=", " onsubmit=", "javascript:", "<script>"] {
                #expect(!html.contains(forbidden), "\(view): \(forbidden)")
            }
            #expect(
                html.components(separatedBy: "<script").count == 2,
                "\(view): only the server's own script file")
            let labelled = Set(
                Self.elements("label", in: html).compactMap { Self.attribute("for", of: $0) })
            for tag in Self.elements("input", in: html) where !tag.contains(#"type="hidden""#) {
                // Labelled by `for`, or inside its label.
                let named =
                    Self.attribute("id", of: tag).map(labelled.contains)
                    ?? html.contains("<label>\(tag)")
                #expect(named, "\(view): \(tag) has no label")
            }
            for tag in Self.elements("svg", in: html) {
                #expect(tag.contains(#"role="img""#), "\(view): \(tag)")
                #expect(
                    tag.contains("aria-label=") || tag.contains("aria-labelledby="),
                    "\(view): \(tag) has no name")
            }
            for tag in Self.elements("button", in: html) {
                #expect(tag.contains(#"type="submit""#), "\(view): \(tag) works without script")
            }
            for table in html.components(separatedBy: "<table").dropFirst() {
                #expect(table.contains("<th scope="), "\(view): a table without headers")
            }
            for tag in Self.elements("a", in: html) {
                #expect(tag.contains("href=\""), "\(view): \(tag) is not a link")
            }
        }
    }

    /// The opening tags `<name …>` in `html`.
    static func elements(_ name: String, in html: String) -> [String] {
        html.components(separatedBy: "<\(name)").dropFirst().compactMap { rest in
            guard rest.first == " " || rest.first == ">" else { return nil }
            return rest.split(separator: ">", maxSplits: 1).first.map { "<\(name)\($0)>" }
        }
    }

    /// The value of `attribute` in an opening tag.
    static func attribute(_ attribute: String, of tag: String) -> String? {
        guard let start = tag.range(of: " \(attribute)=\"") else { return nil }
        return tag[start.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }
}
