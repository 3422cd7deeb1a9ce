import Foundation
import LogStore
import Logbook

/// The History view (a timeline of saves), one save's changes, and one object's history: all
/// read from the log with ``HistoryReader/nextSummary(keepingFirst:of:)``, which counts a
/// save's changes without holding them, so a save of a million objects costs no more memory
/// than a small one.
extension StudioPages {
    /// Saves per timeline page.
    static let savesPerPage = 25
    /// Changes of one save shown with their values.
    static let changesShown = 200

    /// `/history?before=SEQ`: the latest saves up to `SEQ`, newest first.
    func history() throws -> HTTPResponse {
        let container = session.current.container
        let body: HTML
        do {
            let oldest = try container.oldestHistoryToken
            let upper = try number("before").map(UInt64.init) ?? container.store.lastSequence
            let saves = try latestSaves(container, through: upper, oldest: oldest.sequence)
            body = timeline(saves, oldest: oldest, container: container)
        } catch LogbookError.historyNotRecorded {
            body = "<h1>History</h1><p>This store records no history.</p>"
        } catch let error as LogbookError {
            throw StudioError(status: Self.status(of: error), message: error.description)
        }
        return document(title: "History", section: .history, live: true, body: body)
    }

    /// Up to ``savesPerPage`` saves with sequences at most `upper`, oldest first: read forward
    /// from a window before `upper`, widened until it holds enough saves or reaches `oldest`
    /// (commits that are not saves take sequences too).
    private func latestSaves(_ container: ModelContainer, through upper: UInt64, oldest: UInt64)
        throws -> [HistorySaveSummary]
    {
        let identifier = try container.currentHistoryToken.storeIdentifier
        var window = UInt64(Self.savesPerPage + 8)
        while true {
            let start = upper > oldest + window ? upper - window : oldest
            let reader = try container.historyReader(
                after: HistoryToken(storeIdentifier: identifier, sequence: start))
            var saves: [HistorySaveSummary] = []
            while let save = try reader.nextSummary(), save.sequence <= upper {
                saves.append(save)
                if saves.count > Self.savesPerPage { saves.removeFirst() }
            }
            if saves.count == Self.savesPerPage || start == oldest { return saves }
            window *= 4
        }
    }

    private func timeline(
        _ saves: [HistorySaveSummary], oldest: HistoryToken, container: ModelContainer
    )
        -> HTML
    {
        let largest = max(1, saves.map(\.changeCount).max() ?? 1)
        let firstEntity = container.schema.entities.first?.name
        let items = HTML.join(
            saves.reversed().map { save -> HTML in
                let width = max(1, 160 * save.changeCount / largest)
                let entity = save.entities.first ?? firstEntity
                let asOf: HTML =
                    entity.map {
                        " · <a href=\"\(StudioURL(["entity", $0], [("asof", save.token.description)]))\">View the store as of here</a>"
                    } ?? .empty
                return """
                    <li><h2 class="save-title"><a href="\(StudioURL(["history", String(save.sequence)]))">Save \(save.sequence)</a></h2> \
                    · <time>\(Self.time(save.timestamp))</time> · <span class="author">\(save.author ?? "no author")</span>
                    <p class="counts"><span class="ins">\(save.insertCount) inserted</span>, \
                    <span class="upd">\(save.updateCount) updated</span>, \
                    <span class="del">\(save.deleteCount) deleted</span> \
                    (\(save.entities.joined(separator: ", ")))\
                    <svg class="bar" width="160" height="8" role="img" aria-label="\(save.changeCount) changes">\
                    <rect width="\(width)" height="8"></rect></svg> · \
                    <a href="\(StudioURL(["history", String(save.sequence)]))">Its changes</a>\(asOf)</p></li>
                    """
            })
        let older = saves.first.map { $0.sequence > oldest.sequence + 1 } ?? false
        let pager: HTML = """
            <nav class="pager" aria-label="Pages"><a href="/history">Newest</a> \
            \(older ? "<a rel=\"next\" href=\"\(StudioURL(["history"], [("before", String(saves[0].sequence - 1))]))\">Older ›</a>" as HTML : "<span class=\"disabled\" aria-disabled=\"true\">Older ›</span>")</nav>
            """
        return """
            <h1>History</h1>
            <p>Saves, newest first. History kept from token <code>\(oldest.description)</code> on.</p>
            \(saves.isEmpty ? "<p>No saves in the history kept.</p>" as HTML : "<ol class=\"timeline\">\(items)</ol>")
            \(pager)
            """
    }

    /// `/history/SEQ`: one save, its changes with before and after values.
    func save(sequence text: String) throws -> HTTPResponse {
        guard let sequence = UInt64(text), String(sequence) == text, sequence > 0 else {
            throw StudioError.notFound("\"\(text)\" is not a save's sequence number")
        }
        let container = session.current.container
        guard sequence <= container.store.lastSequence else {
            throw StudioError.notFound("no save with sequence \(sequence) yet")
        }
        let identifier: UUID
        let save: HistorySaveSummary
        do {
            identifier = try container.currentHistoryToken.storeIdentifier
            let reader = try container.historyReader(
                after: HistoryToken(storeIdentifier: identifier, sequence: sequence - 1),
                values: true)
            guard let found = try reader.nextSummary(keepingFirst: Self.changesShown),
                found.sequence == sequence
            else {
                throw StudioError.notFound("no save with sequence \(sequence) in the history kept")
            }
            save = found
        } catch let error as LogbookError {
            throw StudioError(status: Self.status(of: error), message: error.description)
        }
        let before = try valuesBefore(save, identifier: identifier)
        let schema = container.schema
        let items = HTML.join(
            save.changes.enumerated().map { i, change -> HTML in
                let id = change.identifier
                let diff = ChangeDiff(
                    entity: schema.entity(named: id.entityName), kind: change.kind,
                    before: before?[i], after: change.record?.attributes,
                    changed: change.updatedAttributes, beforeUnknown: before == nil)
                return """
                    <li><h2 class="change">\(change.kind.rawValue) \
                    <a href="\(StudioURL(["entity", id.entityName, String(id.primaryKey)]))">\(id.description)</a></h2>\(diff.html)</li>
                    """
            })
        let more = save.changeCount - save.changes.count
        let asOf: HTML =
            (save.entities.first ?? schema.entities.first?.name).map {
                "<a href=\"\(StudioURL(["entity", $0], [("asof", save.token.description)]))\">View the store as of here</a>"
            } ?? .empty
        return document(
            title: "Save \(sequence)", section: .history,
            body: """
                <p class="crumbs"><a href="/history">History</a> ›</p>
                <h1>Save \(sequence)</h1>
                <dl class="facts"><dt>Time</dt><dd><time>\(Self.time(save.timestamp))</time></dd>
                <dt>Author</dt><dd>\(save.author ?? "none")</dd>
                <dt>Changes</dt><dd>\(save.insertCount) inserted, \(save.updateCount) updated, \(save.deleteCount) deleted</dd>
                <dt>Token</dt><dd><code>\(save.token.description)</code></dd></dl>
                <p>\(asOf)</p>
                <ol class="changes">\(items)</ol>
                \(more > 0 ? "<p class=\"note\">…and \(more) more changes; <code>logbook history</code> lists them all.</p>" as HTML : .empty)
                """)
    }

    /// The stored fields of each kept change's object before `save` (none for an insert), from
    /// the store as of the commit before it; `nil` if that state is not in the history kept.
    private func valuesBefore(_ save: HistorySaveSummary, identifier: UUID) throws
        -> [[(name: String, value: AttributeValue)]?]?
    {
        guard save.changes.contains(where: { $0.kind != .insert }) else {
            return save.changes.map { _ in nil }
        }
        let token = HistoryToken(storeIdentifier: identifier, sequence: save.sequence - 1)
        let schema = session.current.container.schema
        return try? session.withPast(token) { context in
            try save.changes.map { change -> [(name: String, value: AttributeValue)]? in
                guard change.kind != .insert,
                    let entity = schema.entity(named: change.identifier.entityName),
                    let object = try context.model(for: change.identifier)
                else { return nil }
                return try object.storedFields(of: entity)
            }
        }
    }

    /// The saves that changed `id`, latest last, each with the object's fields before and
    /// after: one pass over the history kept, holding the object's changes only.
    func objectHistory(_ entity: Entity, _ id: PersistentIdentifier) throws -> HTML {
        let container = session.current.container
        var entries: [(save: HistorySaveSummary, change: HistoryChange, before: DecodedRecord?)] =
            []
        var total = 0
        do {
            let reader = try container.historyReader(values: true)
            var previous: DecodedRecord?
            while let save = try reader.nextSummary(keepingFirst: 4, of: id) {
                for change in save.changes {
                    entries.append((save, change, previous))
                    if entries.count > Self.objectSavesShown { entries.removeFirst() }
                    previous = change.kind == .delete ? nil : change.record
                    total += 1
                }
            }
        } catch LogbookError.historyNotRecorded {
            return "<section><h2>History</h2><p>This store records no history.</p></section>"
        } catch let error as LogbookError {
            throw StudioError(status: Self.status(of: error), message: error.description)
        }
        let items = HTML.join(
            entries.reversed().map { entry -> HTML in
                let diff = ChangeDiff(
                    entity: entity, kind: entry.change.kind, before: entry.before?.attributes,
                    after: entry.change.record?.attributes, changed: entry.change.updatedAttributes,
                    beforeUnknown: entry.before == nil && entry.change.kind != .insert)
                return """
                    <li><h3><a href="\(StudioURL(["history", String(entry.save.sequence)]))">Save \(entry.save.sequence)</a>: \
                    \(entry.change.kind.rawValue)</h3> <time>\(Self.time(entry.save.timestamp))</time> · \
                    <span class="author">\(entry.save.author ?? "no author")</span> · \
                    <a href="\(StudioURL(["entity", entity.name, String(id.primaryKey)], [("asof", entry.save.token.description)]))">this object as of here</a>
                    \(diff.html)</li>
                    """
            })
        let shown = total > entries.count ? " (the latest \(entries.count) of \(total))" : ""
        return """
            <section aria-labelledby="history-title"><h2 id="history-title">History\(shown)</h2>
            \(entries.isEmpty ? "<p>No save in the history kept touched this object.</p>" as HTML : "<ol class=\"object-history\">\(items)</ol>")
            </section>
            """
    }
}
