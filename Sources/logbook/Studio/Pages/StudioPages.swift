import Foundation
import LogStore
import Logbook

/// The views, one method each, made for one request: plain HTML that reads without
/// JavaScript, every value escaped (``HTML``), links for every action a reader can take.
///
/// Made and used on the request's thread (it makes the request's ``ModelContext``).
struct StudioPages {
    let app: StudioApp
    let request: HTTPRequest
    /// The store's last sequence when the request came: the page shows at least that, and
    /// its live updates start after it.
    let sequence: UInt64

    init(app: StudioApp, request: HTTPRequest) {
        self.app = app
        self.request = request
        sequence = app.session.current.container.store.lastSequence
    }

    /// The sections of the navigation bar.
    enum Section: String, CaseIterable {
        case overview, schema, objects, history, log

        var title: String {
            switch self {
            case .overview: return "Overview"
            case .schema: return "Schema"
            case .objects: return "Objects"
            case .history: return "History"
            case .log: return "Log"
            }
        }

        var url: StudioURL {
            switch self {
            case .overview: return StudioURL([])
            case .schema: return StudioURL(["schema"])
            case .objects: return StudioURL(["entity"])
            case .history: return StudioURL(["history"])
            case .log: return StudioURL(["log"])
            }
        }
    }

    var session: StoreSession { app.session }

    /// A page: the frame (navigation, live status, the store's name) around `body`.
    /// `live` pages reload their main part when the store changes.
    func document(
        status: Int = 200, title: String, section: Section?, live: Bool = false, past: Bool = false,
        body: HTML
    ) -> HTTPResponse {
        let navigation = HTML.join(
            Section.allCases.map { item -> HTML in
                let current: HTML = item == section ? #" aria-current="page""# : ""
                return "<li><a href=\"\(item.url)\"\(current)>\(item.title)</a></li>"
            })
        let writeToken: HTML =
            session.writable
            ? "<meta name=\"logbook-write-token\" content=\"\(app.access.token)\">\n" : ""
        let mode = session.writable ? "writable (--write)" : "read-only"
        let page: HTML = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            \(writeToken)<title>\(title) · Logbook Studio</title>
            <link rel="stylesheet" href="/assets/studio.css">
            <script src="/assets/studio.js" defer></script>
            </head>
            <body data-live="\(live && !past ? "1" : "0")" data-sequence="\(sequence)" class="\(past ? "past" : "now")">
            <a class="skip" href="#main">Skip to the content</a>
            <header class="top">
            <p class="brand"><a href="/">Logbook Studio</a></p>
            <p class="store"><span class="path">\(session.path)</span> · <span class="mode">\(mode)</span></p>
            <nav aria-label="Views"><ul>\(navigation)</ul></nav>
            </header>
            <div id="live-status" class="live-status" role="status" aria-live="polite"></div>
            <main id="main" tabindex="-1">
            \(body)
            </main>
            <footer><p>Served by <code>logbook studio</code> from this machine only. Keys: <kbd>n</kbd> next page, <kbd>p</kbd> previous page, <kbd>/</kbd> filter.</p></footer>
            </body>
            </html>

            """
        return HTTPResponse(
            status: status, headers: [("Content-Type", "text/html; charset=utf-8")],
            body: Array(page.text.utf8))
    }

    /// A new context on the current state (each request its own).
    func currentContext() -> (ModelContext, generation: UInt64) {
        let (container, generation) = session.current
        return (ModelContext(container), generation)
    }

    /// The past token of `?asof=`, if given.
    /// - Throws: ``StudioError/badRequest(_:)`` if it is not a token.
    func pastToken() throws -> HistoryToken? {
        guard let text = request.queryValue("asof"), !text.isEmpty else { return nil }
        guard let token = HistoryToken(text) else {
            throw StudioError.badRequest(
                "asof: \"\(text)\" is not a history token (<store identifier>:<sequence>)")
        }
        return token
    }

    /// Runs `body` with a context of the current state, or of the past state of `token`.
    func withContext<T>(
        asOf token: HistoryToken?, _ body: (ModelContext, _ generation: UInt64) throws -> T
    ) throws -> T {
        do {
            if let token {
                return try session.withPast(token) { try body($0, 0) }
            }
            let (context, generation) = currentContext()
            return try body(context, generation)
        } catch let error as LogbookError {
            throw StudioError(status: Self.status(of: error), message: error.description)
        }
    }

    /// The status a library error answers: 400 for a request that names something wrongly.
    static func status(of error: LogbookError) -> Int {
        switch error {
        case .predicateSyntax, .unknownAttribute, .unknownEntity, .unsupportedPredicate,
            .invalidHistoryToken, .historyUnavailable:
            return 400
        default: return 500
        }
    }

    /// The banner of a past view, and the link back to now.
    func pastBanner(_ token: HistoryToken, now: StudioURL) -> HTML {
        """
        <div class="past-banner" role="note"><strong>The past:</strong> the store as it was \
        after save \(token.sequence) (token <code>\(token.description)</code>), read-only. \
        <a href="\(now)">Back to now</a></div>
        """
    }

    /// The entity `name` of the current schema.
    /// - Throws: ``StudioError/notFound(_:)``.
    func entity(named name: String) throws -> Entity {
        guard let entity = session.current.container.schema.entity(named: name) else {
            throw StudioError.notFound("no entity \"\(name)\" in the store's schema")
        }
        return entity
    }

    // MARK: Overview

    /// Entities with counts and sizes, schema versions, health, and the open's recovery report.
    func overview() throws -> HTTPResponse {
        let (container, _) = session.current
        let store = container.store
        let stats = try store.stats()
        let sizes = Dictionary(
            stats.keyspaces.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let versions = (try? Schema.storedVersions(in: store).map(\.version)) ?? []
        let rows = HTML.join(
            container.schema.entities.map { entity -> HTML in
                let keyspace = sizes[entity.name]
                return """
                    <tr><th scope="row"><a href="\(StudioURL(["entity", entity.name]))">\(entity.name)</a></th>\
                    <td class="num">\(keyspace?.keys ?? 0)</td>\
                    <td class="num">\(Formatting.byteCount(keyspace?.liveBytes ?? 0))</td>\
                    <td class="num">\(entity.attributes.count)</td>\
                    <td class="num">\(entity.relationships.count)</td>\
                    <td class="num">\(entity.attributes.filter { $0.isIndexed || $0.isUnique }.count + entity.indexes.count)</td></tr>
                    """
            })
        let health = session.health()
        let findings = HTML.join(
            (health.errors.map { ("error", $0) } + health.warnings.map { ("warning", $0) }).map {
                "<li class=\"\($0.0)\">\($0.0): \($0.1)</li>"
            })
        let token = (try? container.currentHistoryToken)?.description ?? "none (no history)"
        let body: HTML = """
            <h1>Overview</h1>
            <section aria-labelledby="entities-title">
            <h2 id="entities-title">Entities</h2>
            <table class="grid">
            <caption>Objects and live bytes per entity, schema version \(container.schema.version)</caption>
            <thead><tr><th scope="col">Entity</th><th scope="col">Objects</th><th scope="col">Live bytes</th>\
            <th scope="col">Attributes</th><th scope="col">Relationships</th><th scope="col">Indexes</th></tr></thead>
            <tbody>\(rows)</tbody>
            </table>
            <p>Schema versions stored: \(versions.map(String.init).joined(separator: ", ")). \
            <a href="/schema">See the schema diagram</a>.</p>
            </section>
            <section aria-labelledby="health-title">
            <h2 id="health-title">Health</h2>
            <p class="\(health.isDamaged ? "bad" : "good")" id="health-line">\(health.line)</p>
            \(findings.text.isEmpty ? HTML.empty : "<ul class=\"findings\">\(findings)</ul>")
            <p class="note">The library's consistency check (<code>logbook verify</code>), \
            run \(Self.time(health.checkedAt)).</p>
            </section>
            <section aria-labelledby="recovery-title">
            <h2 id="recovery-title">Recovery at open</h2>
            \(recoveryReport(container.recovery))
            </section>
            <section aria-labelledby="store-title">
            <h2 id="store-title">Store</h2>
            <dl class="facts">
            <dt>Directory</dt><dd><code>\(session.path)</code></dd>
            <dt>Segments</dt><dd>\(stats.segments) (\(Formatting.byteCount(stats.fileBytes)))</dd>
            <dt>Live / dead bytes</dt><dd>\(Formatting.byteCount(stats.liveBytes)) / \(Formatting.byteCount(stats.deadBytes))</dd>
            <dt>Last sequence</dt><dd>\(stats.lastSequence)</dd>
            <dt>History token</dt><dd><code>\(token)</code></dd>
            </dl>
            </section>
            """
        return document(title: "Overview", section: .overview, live: true, body: body)
    }

    /// What opening the store found and repaired, in words.
    private func recoveryReport(_ report: RecoveryReport) -> HTML {
        var items: [HTML] = []
        for cut in report.cuts {
            items.append(
                "<li>cut \(Formatting.byteCount(cut.length)) at offset \(cut.offset) of \(cut.path): \(cut.reason)\(cut.keptIn.map { " (kept in \($0))" } ?? "")</li>"
            )
        }
        for skip in report.skipped {
            items.append(
                "<li>skipped \(Formatting.byteCount(skip.length)) at offset \(skip.offset) of \(skip.path): \(skip.reason)</li>"
            )
        }
        for moved in report.movedAside { items.append("<li>moved aside: \(moved)</li>") }
        for hint in report.ignoredHints { items.append("<li>hint file ignored: \(hint)</li>") }
        if let reason = report.ignoredKeyDirectory {
            items.append("<li>key directory file ignored: \(reason)</li>")
        }
        for note in report.notes { items.append("<li>\(note)</li>") }
        let index: HTML =
            report.usedKeyDirectory
            ? "The index came from <code>keys.dir</code>."
            : "The index was rebuilt from hint files and segments."
        guard !items.isEmpty else {
            return
                "<p class=\"good\">A clean open: nothing cut, skipped or moved aside. \(index)</p>"
        }
        return """
            <p class="\(report.isClean ? "good" : "bad")">\(report.isClean ? "Clean, with notes:" : "Repairs were made:") \(index)</p>
            <ul>\(HTML.join(items))</ul>
            """
    }

    /// The list of entities (the Objects section's start).
    func entities() throws -> HTTPResponse {
        let (container, _) = session.current
        let items = HTML.join(
            try container.schema.entities.map { entity -> HTML in
                let count = try container.store.count(in: entity.name)
                return
                    "<li><a href=\"\(StudioURL(["entity", entity.name]))\">\(entity.name)</a> (\(count) objects)</li>"
            })
        return document(
            title: "Objects", section: .objects, live: true,
            body: "<h1>Objects</h1><p>Pick an entity:</p><ul class=\"entities\">\(items)</ul>")
    }

    /// A time for people: `2026-12-05 21:27:11 UTC`.
    static func time(_ date: Date) -> String {
        var text = AttributeValue.date(date).text(as: .csv)
        // `2026-12-05T21:27:11.897Z` → `2026-12-05 21:27:11 UTC`.
        if let t = text.firstIndex(of: "T") { text.replaceSubrange(t...t, with: " ") }
        if let dot = text.firstIndex(of: ".") { text = String(text[..<dot]) + "Z" }
        return text.replacingOccurrences(of: "Z", with: " UTC")
    }
}
