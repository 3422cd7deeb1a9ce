import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Headless Chromium: where it is, and a browser to load pages in.
enum Chromium {
    /// Its path: `LOGBOOK_CHROMIUM`, or the first of the usual names that is installed (in
    /// `/usr/bin` or on `PATH`).
    static let path: String? = {
        let environment = ProcessInfo.processInfo.environment
        let names = ["chromium", "chromium-browser", "google-chrome"]
        let directories =
            ["/usr/bin"] + (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let candidates =
            [environment["LOGBOOK_CHROMIUM"]].compactMap { $0 }
            + names.flatMap { name in directories.map { "\($0)/\(name)" } }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The width and height of a PNG (from its header), or `nil` if it is not one.
    static func size(ofPNG bytes: [UInt8]) -> (Int, Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature,
            Array(bytes[12..<16]) == Array("IHDR".utf8)
        else { return nil }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }
}

/// One headless Chromium, started once and driven over the DevTools protocol
/// (``DevToolsPipe``), that loads any number of pages one after the other in one tab of
/// 1280 × 900 pixels, with no cookies from the page before (as a fresh browser would have). One
/// tab, not a tab or a browser context a page: each new one costs renderer processes.
///
/// ``close()`` ends the browser; releasing it kills the browser if it still runs. Not
/// thread-safe: one test uses it.
final class HeadlessChromium {
    private let pipe: DevToolsPipe
    private let run: String
    /// The tab's session.
    private let session: String
    /// How long one page may take to load (or a command to be answered).
    let timeout: Int

    /// Starts the browser, its profile and standard error in a directory of `directory`, and
    /// opens its tab.
    /// - Throws: ``DevToolsError`` if it cannot start or does not answer within `timeout`.
    init(in directory: TemporaryDirectory, timeout: Int = 120) throws {
        guard let path = Chromium.path else { throw DevToolsError.malformed("no Chromium") }
        run = directory.child("chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        self.timeout = timeout
        pipe = try DevToolsPipe(
            path,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--hide-scrollbars",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--user-data-dir=\(run)/profile",
                "--window-size=1280,900", "--remote-debugging-pipe", "about:blank",
            ], stderr: run + "/stderr", environment: ["HOME=\(run)", "PATH=/usr/bin:/bin"])
        let target = try Self.string(
            "targetId",
            of: pipe.command("Target.createTarget", ["url": "about:blank"], within: timeout))
        session = try Self.string(
            "sessionId",
            of: pipe.command(
                "Target.attachToTarget", ["targetId": target, "flatten": true], within: timeout))
        try pipe.command("Page.enable", session: session, within: timeout)
        try pipe.command(
            "Page.setLifecycleEventsEnabled", ["enabled": true], session: session, within: timeout)
        try pipe.command(
            "Emulation.setDeviceMetricsOverride",
            ["width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false],
            session: session, within: timeout)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: run)
    }

    /// Clears the browser's cookies, loads `url` in the tab and waits for its load event (its
    /// scripts have run); returns the DOM then (`document.documentElement.outerHTML`, as
    /// `--dump-dom` prints it) and a PNG screenshot of 1280 × 900 pixels.
    /// - Throws: ``DevToolsError`` if the browser exits, fails a command, or the page does not load
    ///   within ``timeout``.
    func load(_ url: String) throws -> (dom: String, png: [UInt8]) {
        try pipe.command("Storage.clearCookies", within: timeout)
        pipe.discardEvents()
        let navigation = try pipe.command(
            "Page.navigate", ["url": url], session: session, within: timeout)
        if let error = navigation["errorText"] as? String {
            throw DevToolsError.commandFailed(method: "Page.navigate \(url)", message: error)
        }
        // The load event of this navigation's document, not of the page before it.
        let loader = try Self.string("loaderId", of: navigation)
        _ = try pipe.event("Page.lifecycleEvent", session: session, within: timeout) {
            $0["name"] as? String == "load" && $0["loaderId"] as? String == loader
        }
        let dom = try pipe.command(
            "Runtime.evaluate",
            ["expression": "document.documentElement.outerHTML", "returnByValue": true],
            session: session, within: timeout)
        let html = (dom["result"] as? [String: Any])?["value"] as? String
        let shot = try Self.string(
            "data",
            of: pipe.command(
                "Page.captureScreenshot", ["format": "png"], session: session, within: timeout))
        guard let html, let png = Data(base64Encoded: shot) else {
            throw DevToolsError.malformed("\(url): no DOM or no screenshot")
        }
        return (html, [UInt8](png))
    }

    /// Asks the browser to exit and waits for it (killing it after 10 s).
    func close() {
        _ = try? pipe.command("Browser.close", within: 10)
        if pipe.process.exitStatus(within: 10) == nil { pipe.process.signal(SIGKILL) }
    }

    private static func string(_ key: String, of result: [String: Any]) throws -> String {
        guard let value = result[key] as? String else {
            throw DevToolsError.malformed("no \(key) in \(result)")
        }
        return value
    }
}
