import Foundation
import LogStore
import Logbook

/// The Objects view: one entity's objects, a page at a time, in primary-key order or sorted by
/// an attribute, filtered with `--where`'s syntax, with the count and the query plan.
extension StudioPages {
    /// Objects a page shows unless `?limit=` says otherwise, and the most it may ask for.
    static let pageSize = 50
    static let largestPage = 500

    /// The query and page the request's parameters name.
    /// - Throws: ``StudioError/badRequest(_:)`` for a bad number, token or sort attribute.
    func objectQuery(entity: Entity) throws -> (ObjectQuery, offset: Int, limit: Int) {
        let filter = request.queryValue("where").flatMap {
            $0.allSatisfy(\.isWhitespace) ? nil : $0
        }
        let sort = request.queryValue("sort").flatMap { $0.isEmpty ? nil : $0 }
        if let sort, entity.attributeIndex(sort) == nil {
            throw StudioError.badRequest("no attribute \"\(sort)\" to sort \(entity.name) by")
        }
        var link: ObjectQuery.Link?
        if let via = request.queryValue("via"), !via.isEmpty {
            guard let relationship = entity.relationship(named: via), !relationship.isToMany,
                let key = try number("of")
            else {
                throw StudioError.badRequest(
                    "via names a to-one relationship of \(entity.name), and of a primary key")
            }
            link = ObjectQuery.Link(
                relationship: via, destination: relationship.destination, key: UInt64(key))
        }
        let query = ObjectQuery(
            entity: entity.name, filter: filter, sort: sort,
            descending: request.queryValue("desc") == "1", asOf: try pastToken(), link: link)
        return (
            query, try number("offset") ?? 0,
            min(try number("limit") ?? Self.pageSize, Self.largestPage)
        )
    }

    /// The non-negative whole number of `?name=`, if given.
    func number(_ name: String) throws -> Int? {
        guard let text = request.queryValue(name), !text.isEmpty else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw StudioError.badRequest("\(name): \"\(text)\" is not a whole number")
        }
        return value
    }

    /// The matches of `query`, from the session's cache or computed now.
    func result(of query: ObjectQuery, in context: ModelContext, generation: UInt64) throws
        -> QueryResult
    {
        do {
            // Past states never change: their results are kept under generation 0 with the token.
            let store = query.asOf == nil ? context.container.store : nil
            return try session.queries.result(
                of: query, generation: query.asOf == nil ? generation : 0
            ) {
                // A scan or a sort reads records all over the log: let their pages go after.
                defer { store?.releaseMappedPages() }
                return try query.run(in: context, store: store)
            }
        } catch let error as LogbookError {
            throw StudioError(status: Self.status(of: error), message: error.description)
        }
    }

    /// `/entity/NAME`: the grid.
    func objects(entity name: String) throws -> HTTPResponse {
        let entity = try entity(named: name)
        let (query, requestedOffset, requestedLimit) = try objectQuery(entity: entity)
        let limit = max(1, requestedLimit)
        var filterError: String?
        let page = try withContext(asOf: query.asOf) { context, generation -> GridPage in
            let result: QueryResult
            do {
                result = try self.result(of: query, in: context, generation: generation)
            } catch let error as StudioError where error.status == 400 && query.filter != nil {
                filterError = error.message
                return GridPage(result: nil, offset: 0, limit: limit, rows: [])
            }
            let offset =
                result.count == 0 ? 0 : min(requestedOffset, (result.count - 1) / limit * limit)
            let keys = result.keys[offset..<min(offset + limit, result.count)]
            // Each read maps a block of pages around its record and its index slot: let them
            // go every few reads, so that paging through a large store keeps little mapped.
            let store = query.asOf == nil ? context.container.store : nil
            var rows: [GridRow] = []
            for (i, key) in keys.enumerated() {
                rows.append(try GridRow.read(entity, key, context))
                if i % 16 == 15 { store?.releaseMappedPages() }
            }
            store?.releaseMappedPages()
            return GridPage(result: result, offset: offset, limit: limit, rows: rows)
        }
        let body = grid(entity, query, page, filterError: filterError)
        return document(
            status: filterError == nil ? 200 : 400, title: entity.name, section: .objects,
            live: true, past: query.asOf != nil, body: body)
    }

    /// The URL of the grid of `query`'s page at `offset` (and other changes of its parameters).
    func gridURL(
        _ query: ObjectQuery, offset: Int? = nil, limit: Int, sort: String?? = .none,
        descending: Bool? = nil
    ) -> StudioURL {
        let sortKey = sort ?? query.sort
        return StudioURL(
            ["entity", query.entity],
            [
                ("where", query.filter), ("sort", sortKey),
                ("desc", (descending ?? query.descending) ? "1" : nil),
                ("offset", offset.flatMap { $0 > 0 ? String($0) : nil }),
                ("limit", limit == Self.pageSize ? nil : String(limit)),
                ("asof", query.asOf?.description), ("via", query.link?.relationship),
                ("of", query.link.map { String($0.key) }),
            ])
    }

    private func grid(
        _ entity: Entity, _ query: ObjectQuery, _ page: GridPage, filterError: String?
    )
        -> HTML
    {
        let toOne = entity.relationships.filter { !$0.isToMany }
        let past: HTML =
            query.asOf.map {
                pastBanner(
                    $0,
                    now: gridURL(
                        ObjectQuery(
                            entity: query.entity, filter: query.filter,
                            sort: query.sort, descending: query.descending), limit: page.limit))
            } ?? .empty
        let hidden = HTML.join(
            [
                ("sort", query.sort), ("desc", query.descending ? "1" : nil),
                ("asof", query.asOf?.description),
                ("limit", page.limit == Self.pageSize ? nil : String(page.limit)),
                ("via", query.link?.relationship), ("of", query.link.map { String($0.key) }),
            ]
            .compactMap { name, value in
                value.map { "<input type=\"hidden\" name=\"\(name)\" value=\"\($0)\">" }
            })
        let form: HTML = """
            <form class="filter" method="get" action="\(StudioURL(["entity", entity.name]))" role="search">
            <label for="where">Filter (the syntax of <code>--where</code>)</label>
            <input id="where" name="where" type="search" value="\(query.filter ?? "")" \
            placeholder="salary > 1000 AND name BEGINSWITH[c] 'a'" autocomplete="off" spellcheck="false">
            \(hidden)<button type="submit">Apply</button> \
            <a href="\(gridURL(ObjectQuery(entity: query.entity, asOf: query.asOf), limit: page.limit))">Clear</a>
            </form>
            \(query.link.map { link -> HTML in
                "<p class=\"link\">Only those whose <code>\(link.relationship)</code> is <a href=\"\(StudioURL(["entity", link.destination, String(link.key)], [("asof", query.asOf?.description)]))\">\(link.destination)/\(link.key)</a>.</p>"
            } ?? .empty)
            """
        guard let result = page.result else {
            return """
                <h1>\(entity.name)</h1>\(past)\(form)
                <p class="error" role="alert" id="filter-error">The filter does not work: \(filterError ?? "")</p>
                """
        }
        let first = result.count == 0 ? 0 : page.offset + 1
        let last = page.offset + page.rows.count
        let summary: HTML = """
            <p class="summary"><strong id="match-count">\(result.count)</strong> \
            \(result.count == 1 ? "object" : "objects")\(query.filter == nil ? "" : " match"); \
            showing \(first)–\(last).</p>
            <p class="plan">Plan: <code id="plan">\(result.plan)</code></p>
            <p class="export">Export this \(query.filter == nil ? "list" : "filter"): \
            <a href="\(exportURL(query, "export.csv"))" download>CSV</a> · \
            <a href="\(exportURL(query, "export.jsonl"))" download>JSON Lines</a></p>
            """
        let headers = HTML.join(
            [idHeader(query, page.limit)]
                + entity.attributes.map {
                    sortHeader($0.name, $0.type.description, query, page.limit)
                }
                + toOne.map {
                    "<th scope=\"col\">\($0.name) <span class=\"type\">→ \($0.destination)</span></th>"
                })
        let rows = HTML.join(
            page.rows.map { row -> HTML in
                let id: HTML = """
                    <th scope="row"><a href="\(StudioURL(["entity", entity.name, String(row.key)], [("asof", query.asOf?.description)]))">\(row.key)</a></th>
                    """
                guard let values = row.values else {
                    return
                        "<tr>\(id)<td colspan=\"\(entity.attributes.count + toOne.count)\" class=\"null\">(gone)</td></tr>"
                }
                let cells = HTML.join(values.map { "<td>\(ValueText.cell($0))</td>" })
                let links = HTML.join(
                    row.related.map { related -> HTML in
                        guard let related else { return "<td><span class=\"null\">nil</span></td>" }
                        return
                            "<td><a href=\"\(StudioURL(["entity", related.entityName, String(related.primaryKey)], [("asof", query.asOf?.description)]))\">\(related.description)</a></td>"
                    })
                return "<tr>\(id)\(cells)\(links)</tr>"
            })
        let pager = pagination(query, page, count: result.count)
        return """
            <h1>\(entity.name)</h1>
            \(past)\(form)\(summary)\(pager)
            <div class="table-wrap"><table class="grid objects">
            <caption>\(entity.name) objects \(first)–\(last) of \(result.count)</caption>
            <thead><tr>\(headers)</tr></thead>
            <tbody>\(rows)</tbody>
            </table></div>
            \(pager)
            """
    }

    private func exportURL(_ query: ObjectQuery, _ name: String) -> StudioURL {
        StudioURL(
            ["entity", query.entity, name],
            [
                ("where", query.filter), ("sort", query.sort),
                ("desc", query.descending ? "1" : nil),
                ("asof", query.asOf?.description), ("via", query.link?.relationship),
                ("of", query.link.map { String($0.key) }),
            ])
    }

    /// The id column's header: primary-key order, its direction a link.
    private func idHeader(_ query: ObjectQuery, _ limit: Int) -> HTML {
        let sorted = query.sort == nil
        let next = sorted ? !query.descending : false
        let state: HTML =
            sorted ? " aria-sort=\"\(query.descending ? "descending" : "ascending")\"" : ""
        return
            "<th scope=\"col\"\(state)><a href=\"\(gridURL(query, limit: limit, sort: .some(nil), descending: next))\">id\(sorted ? (query.descending ? " ↓" : " ↑") : "")</a></th>"
    }

    /// An attribute's header: a link that sorts by it (or turns its direction).
    private func sortHeader(_ name: String, _ type: String, _ query: ObjectQuery, _ limit: Int)
        -> HTML
    {
        let sorted = query.sort == name
        let next = sorted ? !query.descending : false
        let state: HTML =
            sorted ? " aria-sort=\"\(query.descending ? "descending" : "ascending")\"" : ""
        return """
            <th scope="col"\(state)><a href="\(gridURL(query, limit: limit, sort: .some(name), descending: next))">\
            \(name)\(sorted ? (query.descending ? " ↓" : " ↑") : "")</a> <span class="type">\(type)</span></th>
            """
    }

    /// First, previous, next and last page, as links (keys `p` and `n` follow them).
    private func pagination(_ query: ObjectQuery, _ page: GridPage, count: Int) -> HTML {
        let limit = page.limit
        let lastOffset = count == 0 ? 0 : (count - 1) / limit * limit
        func link(_ label: String, _ offset: Int, _ enabled: Bool, rel: String? = nil) -> HTML {
            guard enabled else {
                return "<span class=\"disabled\" aria-disabled=\"true\">\(label)</span>"
            }
            let relation: HTML = rel.map { " rel=\"\($0)\"" } ?? ""
            return
                "<a href=\"\(gridURL(query, offset: offset, limit: limit))\"\(relation)>\(label)</a>"
        }
        let pageNumber = page.offset / limit + 1
        let pages = max(1, lastOffset / limit + 1)
        return """
            <nav class="pager" aria-label="Pages">\
            \(link("« First", 0, page.offset > 0)) \
            \(link("‹ Previous", max(0, page.offset - limit), page.offset > 0, rel: "prev")) \
            <span class="page-of">page \(pageNumber) of \(pages)</span> \
            \(link("Next ›", page.offset + limit, page.offset + limit < count, rel: "next")) \
            \(link("Last »", lastOffset, page.offset < lastOffset))</nav>
            """
    }
}

/// One page of the grid: the query's result (or `nil` when its filter failed) and its rows.
struct GridPage {
    var result: QueryResult?
    var offset: Int
    var limit: Int
    var rows: [GridRow]
}

/// One object of the grid: its attribute values, in schema order, and its to-one relationships.
struct GridRow {
    var key: UInt64
    /// `nil` if the object is no longer there.
    var values: [AttributeValue]?
    var related: [PersistentIdentifier?] = []

    /// Reads the object `key` of `entity` through `context`.
    static func read(_ entity: Entity, _ key: UInt64, _ context: ModelContext) throws -> GridRow {
        let id = PersistentIdentifier(entityName: entity.name, primaryKey: key)
        guard let object = try context.model(for: id) else { return GridRow(key: key, values: nil) }
        return GridRow(
            key: key,
            values: try entity.attributes.map { try object.attributeValue(forKey: $0.name) },
            related: try entity.relationships.filter { !$0.isToMany }.map {
                (try object.value(forKey: $0.name) as? any ModelObject)?.persistentModelID
            })
    }
}
