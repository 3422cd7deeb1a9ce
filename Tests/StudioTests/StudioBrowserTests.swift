import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

@testable import logbook

/// Headless Chromium (`LOGBOOK_CHROMIUM`, else `chromium` and its usual names; `.ci/run`
/// installs Debian's `chromium`), loading every view by its URL on the demo store and on a store
/// of 100,000 employees (20,000 in the default tier): the DOM after scripts ran holds what the
/// view must show, the script ran under the content security policy, and each view's
/// screenshot is far from blank. One browser a test, driven over the DevTools protocol
/// (``HeadlessChromium``), loads every view one after the other in one tab: a launch, or a new
/// tab or browser context, costs processes and most of a second of CPU; a page in the same tab
/// a small fraction of that.
///
/// `LOGBOOK_STUDIO_SCREENSHOT=FILE` also writes the objects view of the large store there (the
/// picture in README.md).
@Suite(
    .serialized,
    .enabled(
        if: Chromium.path != nil,
        "SKIPPED: no headless Chromium found (install Debian's chromium, or set LOGBOOK_CHROMIUM)"))
struct StudioBrowserTests {
    /// A view to load, and what its DOM must hold.
    struct View {
        var target: String
        var expected: [String]
    }

    @Test func everyViewOfTheDemoStore() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start()
        defer { studio.stop() }
        let token = try storeToken(fixture.path)
        try check(
            studio, in: fixture.directory,
            [
                View(target: "/", expected: ["<h1>Overview</h1>", ">59</td>", "OK: 1 segment"]),
                View(target: "/schema", expected: ["<svg", ">StaffedEmployee</text>", "[*]"]),
                View(
                    target: "/entity/Employee",
                    expected: [">59</strong> objects", "&lt;script&gt;alert(1)&lt;/script&gt;"]),
                View(
                    target: "/entity/Employee/7",
                    expected: ["<h1>Employee/7</h1>", "Save 3</a>: insert"]),
                View(
                    target: "/entity/Company/1",
                    expected: ["StaffedEmployee/1", "all 2 in the grid"]),
                View(target: "/history", expected: ["Save 6</a>", "seed"]),
                View(target: "/history/5", expected: ["<td class=\"before\">"]),
                View(
                    target: "/entity/Employee?asof=\(token):4",
                    expected: ["The past:", ">60</strong>"]),
                View(target: "/log", expected: ["<svg class=\"segments\"", "keys.dir"]),
            ])
    }

    /// 100,000 employees in the long tier and for the screenshot (README.md's), 20,000 in the
    /// default tier; saved 10,000 at a time, after the schema's save.
    @Test func everyViewOfALargeStore() throws {
        let screenshot = ProcessInfo.processInfo.environment["LOGBOOK_STUDIO_SCREENSHOT"]
        let n = screenshot != nil ? 100_000 : TestTier.pick(quick: 20_000, long: 100_000)
        let (pages, lastSave) = (n / 50, n / 10_000 + 1)
        let fixture = StudioFixture("studio-large")
        defer { fixture.remove() }
        try LargeStore.employees(n, at: fixture.path)
        let studio = try fixture.start()
        defer { studio.stop() }
        let token = try storeToken(fixture.path)
        let engineers = "designation%20%3D%3D%20%27Engineer%27"
        try check(
            studio, in: fixture.directory,
            [
                View(target: "/", expected: [">\(n)</td>", "OK: "]),
                View(target: "/schema", expected: ["designation: String  [indexed]"]),
                View(
                    target: "/entity/Employee",
                    expected: [">\(n)</strong> objects", "page 1 of \(pages)"]),
                View(
                    target: "/entity/Employee?offset=\(n - 50)",
                    expected: [
                        "showing \(n - 49)–\(n)", "page \(pages) of \(pages)",
                        "/entity/Employee/\(n)\"",
                    ]),
                View(
                    target: "/entity/Employee?where=\(engineers)&sort=salary&desc=1",
                    expected: [
                        "index Employee(designation)", "objects match", "aria-sort=\"descending\"",
                    ]),
                View(
                    target: "/entity/Employee/\(n / 2)",
                    expected: ["<h1>Employee/\(n / 2)</h1>", "loader"]),
                View(target: "/history", expected: ["Save \(lastSave)</a>", "10000 inserted"]),
                View(target: "/history/\(lastSave)", expected: ["and 9800 more changes"]),
                View(
                    target: "/entity/Employee?asof=\(token):2",
                    expected: ["The past:", ">10000</strong>"]),
                View(target: "/log", expected: ["<svg class=\"segments\""]),
            ],
            screenshotOf: screenshot.map {
                ("/entity/Employee?where=\(engineers)&sort=salary&desc=1", $0)
            })
    }

    /// The store identifier of the store at `path`.
    private func storeToken(_ path: String) throws -> String {
        var options = LogStoreOptions()
        options.readOnly = true
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: path), options: options)
        defer { try? container.close() }
        return try container.currentHistoryToken.storeIdentifier.uuidString.lowercased()
    }

    /// Loads each view, checks its DOM and its screenshot; saves one screenshot if asked.
    private func check(
        _ studio: RunningStudio, in directory: TemporaryDirectory, _ views: [View],
        screenshotOf saved: (target: String, file: String)? = nil
    ) throws {
        let base = "http://127.0.0.1:\(studio.port)"
        let browser = try HeadlessChromium(in: directory)
        defer { browser.close() }
        let blank = try browser.load("about:blank")
        #expect(blank.png.count > 0)
        for view in views {
            let separator = view.target.contains("?") ? "&" : "?"
            let page = try browser.load(
                base + view.target + separator + "token=" + RunningStudio.token)
            #expect(
                page.dom.contains("<html lang=\"en\" class=\"js\">"),
                "\(view.target): the script did not run")
            for text in view.expected {
                #expect(page.dom.contains(text), "\(view.target) lacks \(text)")
            }
            #expect(!page.dom.contains("<script>alert"), "\(view.target)")
            #expect(
                Chromium.size(ofPNG: page.png).map { $0 == (1280, 900) } == true, "\(view.target)")
            // A page of text and tables compresses far worse than a blank one.
            #expect(
                page.png.count > max(20_000, 4 * blank.png.count),
                "\(view.target): \(page.png.count) bytes")
            if let saved, saved.target == view.target { writeFile(saved.file, page.png) }
        }
    }
}

/// Where Chromium was installed (`.ci/run` sets `LOGBOOK_REQUIRE_CHROMIUM`), the browser tests
/// are not skipped: they cannot lose it without failing.
@Suite struct ChromiumPresenceTests {
    @Test func chromiumIsFoundWhereItIsRequired() {
        let required = ProcessInfo.processInfo.environment["LOGBOOK_REQUIRE_CHROMIUM"] == "1"
        #expect(
            !required || Chromium.path != nil,
            "LOGBOOK_REQUIRE_CHROMIUM=1 but no Chromium was found: the browser tests would skip")
    }
}
