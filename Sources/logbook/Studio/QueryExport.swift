import Foundation
import Logbook

/// The export of the Objects view's current filter: its matches, in its order, as CSV (a header
/// row `id,field,…`, RFC 4180) or as JSON Lines in the form of `logbook export --format jsonl`
/// (the schema line, then one `{"_entity": …, "_id": …, fields…}` line per object), which
/// `logbook import` reads back. To-one relationships are the destination's primary key.
///
/// Streams: objects are read a batch at a time and written as they come; memory holds the
/// query's keys (8 bytes a match) and one batch.
struct QueryExport {
    let app: StudioApp
    let request: HTTPRequest

    /// Objects read between two fresh contexts (so that none grows with the export).
    private static let batch = 512

    /// `/entity/NAME/export.csv`.
    func csv(_ name: String) throws -> HTTPResponse {
        try export(name, type: "text/csv; charset=utf-8", suffix: "csv") { entity, _, sink in
            try sink.write(
                (["id"] + entity.fieldNames).map { AttributeValue.string($0).text(as: .csv) }
                    .joined(separator: ",") + "\r\n")
            return { key, fields, out in
                out.append(contentsOf: String(key).utf8)
                for (_, value) in fields {
                    out.append(UInt8(ascii: ","))
                    value.append(as: .csv, to: &out)
                }
                out.append(contentsOf: "\r\n".utf8)
            }
        }
    }

    /// `/entity/NAME/export.jsonl`.
    func jsonl(_ name: String) throws -> HTTPResponse {
        try export(name, type: "application/x-ndjson; charset=utf-8", suffix: "jsonl") {
            entity, schema, sink in
            try sink.write("{\"_schema\":\(SchemaJSON.encode(schema))}\n")
            let prefix = Array("{\"_entity\":\(Formatting.quoted(entity.name)),\"_id\":".utf8)
            let names = entity.fieldNames.map { Array(",\(Formatting.quoted($0)):".utf8) }
            return { key, fields, out in
                out.append(contentsOf: prefix)
                out.append(contentsOf: String(key).utf8)
                for (i, (_, value)) in fields.enumerated() {
                    out.append(contentsOf: names[i])
                    value.append(as: .json, to: &out)
                }
                out.append(contentsOf: "}\n".utf8)
            }
        }
    }

    /// Writes one object: its key and stored fields, into the buffer.
    private typealias Row = (UInt64, [(name: String, value: AttributeValue)], inout [UInt8]) -> Void

    private func export(
        _ name: String, type: String, suffix: String,
        header: @escaping (Entity, Schema, ResponseSink) throws -> Row
    ) throws -> HTTPResponse {
        let pages = StudioPages(app: app, request: request)
        let entity = try pages.entity(named: name)
        let (query, _, _) = try pages.objectQuery(entity: entity)
        // The matches first, so that a bad filter is an error page, not a broken download.
        let keys = try pages.withContext(asOf: query.asOf) { context, generation in
            try pages.result(of: query, in: context, generation: generation).keys
        }
        let schema = app.session.current.container.schema
        let session = app.session
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", type),
                (
                    "Content-Disposition",
                    "attachment; filename=\"\(Self.fileName(entity.name)).\(suffix)\""
                ),
            ]
        ) { sink in
            let row = try header(entity, schema, sink)
            var start = 0
            while start < keys.count {
                let slice = keys[start..<min(start + Self.batch, keys.count)]
                let read = { (context: ModelContext) throws in
                    try sink.render { out in
                        for key in slice {
                            let id = PersistentIdentifier(entityName: entity.name, primaryKey: key)
                            guard let object = try context.model(for: id) else { continue }
                            row(key, try object.storedFields(of: entity), &out)
                        }
                    }
                }
                if let token = query.asOf {
                    try session.withPast(token, read)
                } else {
                    try read(ModelContext(session.current.container))
                }
                start += Self.batch
            }
        }
    }

    /// `name` with every character but letters, digits, `-`, `_` and `.` as `_`: a file name
    /// that cannot break out of the header's quotes.
    static func fileName(_ name: String) -> String {
        let safe = String(
            name.unicodeScalars.map { scalar -> Character in
                let allowed =
                    (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)))
                    || scalar == "-" || scalar == "_" || scalar == "."
                return allowed ? Character(scalar) : "_"
            })
        return safe.isEmpty ? "export" : String(safe.prefix(64))
    }
}
