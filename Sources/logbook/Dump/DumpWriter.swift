import Foundation
import LogStore
import Logbook

/// What the stored schema makes of one record.
enum RecordMeaning {
    /// Nothing: shown as raw bytes.
    case raw
    /// A put of an object.
    case object(DecodedRecord)
    /// A delete of the object with this primary key.
    case deletedObject(entity: String, id: UInt64)
    /// A schema record: one version of the store's schema.
    case schema(Schema)
    /// A record of an entity keyspace that does not decode; the reason.
    case undecodable(String)
}

/// Formats dumped records as aligned text, a JSON array or JSON lines, and writes them to a
/// buffered output as they come: memory holds one record (and, for text, at most 256 rows).
///
/// Text columns: segment file, record offset, sequence, type, keyspace, key, value. Object
/// records show their primary key and `attribute=value` pairs; other records show keys and
/// values as quoted text when printable UTF-8, else `0x` hex. Rows are aligned in chunks of 256,
/// with column widths that only grow.
struct DumpWriter {
    /// How records are written.
    let format: OutputFormat
    let output: FileOutput
    private var table = AlignedTable(rightAligned: [1, 2])
    /// Whether no record has been written yet.
    var first = true
    // The JSON around strings that repeat from one record to the next.
    var segmentJSON = CachedJSON("{\"segment\":", ",\"frameOffset\":")
    var putJSON = CachedJSON(",\"type\":\"put\",\"keyspace\":", ",\"keyHex\":")
    var deleteJSON = CachedJSON(",\"type\":\"delete\",\"keyspace\":", ",\"keyHex\":")
    var defineJSON = CachedJSON(",\"type\":\"define-keyspace\",\"keyspace\":", "")
    var entityJSON = CachedJSON(",\"entity\":", ",\"id\":")
    var fieldKeys: (entity: String, keys: [[UInt8]]) = ("", [])
    /// The reader of `fieldKeys.entity`'s records (made with `fieldKeys`), for the records the
    /// walk lends: no keyspace lookup, shape or `String` per value.
    var fieldReader: EntityFieldReader?
    private var textKeys: (entity: String, keys: [[UInt8]]) = ("", [])
    private var valueCell: [UInt8] = []

    /// A writer of `format` to `output`.
    init(format: OutputFormat, to output: FileOutput) {
        self.format = format
        self.output = output
    }

    /// Writes what comes before the first record (the header row, `[`).
    mutating func begin() {
        switch format {
        case .text: table.append(["SEGMENT", "OFFSET", "SEQ", "TYPE", "KEYSPACE", "KEY", "VALUE"])
        case .json: output.write("[")
        case .jsonl: break
        }
    }

    /// Writes one record with what the schema makes of it.
    mutating func write(_ record: LogInspector.Record, meaning: RecordMeaning) {
        switch format {
        case .text:
            table.append(Self.row(record, meaning: meaning))
            if table.pendingRows >= 256 { table.flush(to: output) }
            return
        case .json, .jsonl:
            output.render { out in
                appendSeparator(to: &out)
                appendHeader(record, to: &out)
                appendTail(meaning, of: record, to: &out)
                appendTerminator(to: &out)
            }
            first = false
        }
    }

    /// Writes an object put of an entity keyspace as a text row, decoding its fields straight
    /// into the value cell. Text format only.
    /// - Throws: the decoder's error for a record that does not decode, having written nothing.
    mutating func writeObjectRow(_ record: LogInspector.Record, decoder: RecordDecoder) throws {
        if textKeys.entity != record.keyspace {
            let names = decoder.schema.entity(named: record.keyspace)?.fieldNames ?? []
            textKeys = (
                record.keyspace,
                names.enumerated().map { Array((($0 == 0 ? "" : " ") + $1 + "=").utf8) }
            )
        }
        let keys = textKeys.keys
        var cell = valueCell
        cell.removeAll(keepingCapacity: true)
        defer { valueCell = cell }
        let (id, _) = try record.key.withUnsafeBytes { key in
            try (record.value ?? []).withUnsafeBytes { value in
                try decoder.decodeFields(keyspace: record.keyspace, key: key, value: value) {
                    i, value in
                    cell.append(contentsOf: keys[i])
                    value.appendDisplay(to: &cell)
                }
            }
        }
        table.append([
            record.segment, String(record.recordOffset), String(record.sequence),
            record.kind.rawValue, record.keyspace, String(id),
            String(decoding: cell, as: UTF8.self),
        ])
        if table.pendingRows >= 256 { table.flush(to: output) }
        first = false
    }

    /// Appends what comes before a record's JSON: for an array, the comma and indentation.
    func appendSeparator(to out: inout [UInt8]) {
        if format == .json { out.appendText(first ? "\n  " : ",\n  ") }
    }

    /// Appends what comes after a record's JSON: for JSON Lines, the line feed.
    func appendTerminator(to out: inout [UInt8]) {
        if format == .jsonl { out.append(UInt8(ascii: "\n")) }
    }

    /// Writes what comes after the last record.
    mutating func end() {
        switch format {
        case .text: table.flush(to: output)
        case .json: output.write(first ? "]\n" : "\n]\n")
        case .jsonl: break
        }
    }

    private static func row(_ record: LogInspector.Record, meaning: RecordMeaning) -> [String] {
        var row = [
            record.segment, String(record.recordOffset), String(record.sequence),
            record.kind.rawValue, record.keyspace,
        ]
        if record.kind == .defineKeyspace { return row + ["", ""] }
        let rawValue = record.value.map(Formatting.display) ?? ""
        switch meaning {
        case .raw: row += [Formatting.display(record.key), rawValue]
        case .object(let object):
            row.append(String(object.id.primaryKey))
            row.append(
                object.attributes.map { "\($0.name)=\($0.value.display)" }.joined(separator: " "))
        case .deletedObject(_, let id): row += [String(id), ""]
        case .schema(let schema):
            row.append("version \(schema.version)")
            row.append(schema.entities.map(describe).joined(separator: " "))
        case .undecodable(let reason):
            row += [Formatting.display(record.key), rawValue + "  (does not decode: \(reason))"]
        }
        return row
    }

    /// `Employee(name: String, salary: Int64? indexed, company: Company?)`: attributes with
    /// ` indexed`, ` unique`, ` searchable` when so, then relationships (`[Employee]` for to-many)
    /// with their delete rule unless it is nullify; a sub-entity as `Dog: Animal(…)`.
    private static func describe(_ entity: Entity) -> String {
        var properties: [String] = entity.attributes.map { attribute in
            var text = attribute.name + ": " + attribute.declaredType
            if attribute.isIndexed { text += " indexed" }
            if attribute.isUnique { text += " unique" }
            if attribute.isSearchable { text += " searchable" }
            return text
        }
        for relationship in entity.relationships {
            var text = relationship.name + ": "
            text +=
                relationship.isToMany
                ? "[\(relationship.destination)]" : relationship.destination + "?"
            if relationship.storesLinks { text += " links" }
            if relationship.deleteRule != .nullify { text += " \(relationship.deleteRule)" }
            properties.append(text)
        }
        return entity.name + (entity.superentity.map { ": " + $0 } ?? "") + "("
            + properties.joined(separator: ", ") + ")"
    }
}

/// `before`, a string as JSON, then `after`: kept while the same string comes again, so a run
/// of records of one segment or keyspace escapes its name once.
struct CachedJSON {
    private let before: StaticString
    private let after: StaticString
    private var text: String?
    private var json: [UInt8] = []

    init(_ before: StaticString, _ after: StaticString) {
        self.before = before
        self.after = after
    }

    /// Calls `body` with `before`, `text` as a JSON string and `after`.
    mutating func withJSON(_ text: String, _ body: (UnsafeRawBufferPointer) -> Void) {
        render(text)
        json.withUnsafeBytes(body)
    }

    /// Appends `before`, `text` as a JSON string and `after` to `line`.
    mutating func append(_ text: String, to line: inout [UInt8]) {
        render(text)
        line.append(contentsOf: json)
    }

    /// Makes `json` hold `before`, `text` as a JSON string and `after`, unless it already does.
    private mutating func render(_ text: String) {
        guard text != self.text else { return }
        self.text = text
        json.removeAll(keepingCapacity: true)
        json.appendLiteral(before)
        json.appendJSON(text)
        json.appendLiteral(after)
    }
}
