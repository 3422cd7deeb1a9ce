import LogStore

/// What the stored schema makes of one record.
enum RecordMeaning {
    /// Nothing: shown as raw bytes.
    case raw
    /// A put of an object.
    case object(DecodedObject)
    /// A delete of the object with this primary key.
    case deletedObject(entity: String, id: UInt64)
    /// The schema record of the store's current schema.
    case schema(StoredSchema)
    /// A record of an entity keyspace that does not decode; the reason.
    case undecodable(String)
}

/// Formats dumped records as aligned text, a JSON array or JSON lines.
///
/// Text columns: segment file, record offset, sequence, type, keyspace, key, value. Object
/// records show their primary key and `attribute=value` pairs; other records show keys and
/// values as quoted text when printable UTF-8, else `0x` hex. Rows are aligned in chunks of 256,
/// with column widths that only grow.
struct DumpWriter {
    /// How records are written.
    let format: OutputFormat
    private var table = AlignedTable(rightAligned: [1, 2])
    private var first = true

    /// A writer of `format`.
    init(format: OutputFormat) { self.format = format }

    /// Writes what comes before the first record (the header row, `[`).
    mutating func begin(to output: inout some TextOutputStream) {
        switch format {
        case .text: table.append(["SEGMENT", "OFFSET", "SEQ", "TYPE", "KEYSPACE", "KEY", "VALUE"])
        case .json: output.write("[")
        case .jsonl: break
        }
    }

    /// Writes one record with what the schema makes of it.
    mutating func write(
        _ record: LogInspector.Record, meaning: RecordMeaning,
        to output: inout some TextOutputStream
    ) {
        switch format {
        case .text:
            table.append(Self.row(record, meaning: meaning))
            if table.pendingRows >= 256 { table.flush(to: &output) }
        case .json:
            output.write(first ? "\n  " : ",\n  ")
            output.write(Self.json(record, meaning: meaning))
        case .jsonl:
            output.write(Self.json(record, meaning: meaning) + "\n")
        }
        first = false
    }

    /// Writes what comes after the last record.
    mutating func end(to output: inout some TextOutputStream) {
        switch format {
        case .text: table.flush(to: &output)
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
            row.append(String(object.id))
            row.append(
                object.fields.map { "\($0.name)=\($0.value.display)" }.joined(separator: " "))
        case .deletedObject(_, let id): row += [String(id), ""]
        case .schema(let schema):
            row.append("version \(schema.version)")
            row.append(
                schema.entities.map { entity in
                    entity.name + "("
                        + entity.attributes.map { Self.describe($0) }.joined(separator: ", ") + ")"
                }.joined(separator: " "))
        case .undecodable(let reason):
            row += [Formatting.display(record.key), rawValue + "  (does not decode: \(reason))"]
        }
        return row
    }

    /// `salary: Int64?` with ` indexed`, ` unique` when so.
    private static func describe(_ attribute: AttributeInfo) -> String {
        var text = attribute.name + ": " + attribute.type.rawValue
        if attribute.isOptional { text += "?" }
        if attribute.isIndexed { text += " indexed" }
        if attribute.isUnique { text += " unique" }
        return text
    }

    /// One record as a JSON object: `segment`, `frameOffset`, `offset`, `sequence`, `type`,
    /// `keyspace`, then `keyHex` and `key` (text or `null`), then by meaning: an object's
    /// `entity`, `id`, `version`, `object`; a deleted object's `entity` and `id`; the current
    /// schema record's `schema`; else `valueHex` and `value` (text or `null`), with
    /// `decodeError` when an entity's record does not decode.
    static func json(_ record: LogInspector.Record, meaning: RecordMeaning) -> String {
        var members = [
            ("segment", Formatting.quoted(record.segment)),
            ("frameOffset", String(record.frameOffset)),
            ("offset", String(record.recordOffset)),
            ("sequence", String(record.sequence)),
            ("type", Formatting.quoted(record.kind.rawValue)),
            ("keyspace", Formatting.quoted(record.keyspace)),
        ]
        if record.kind != .defineKeyspace {
            members.append(("keyHex", Formatting.quoted(Formatting.hex(record.key))))
            members.append(("key", text(record.key)))
        }
        switch meaning {
        case .object(let object):
            members.append(("entity", Formatting.quoted(object.entity)))
            members.append(("id", String(object.id)))
            members.append(("version", String(object.version)))
            members.append(("object", jsonObject(object.fields)))
        case .deletedObject(let entity, let id):
            members.append(("entity", Formatting.quoted(entity)))
            members.append(("id", String(id)))
        case .schema(let schema):
            members.append(("schema", SchemaJSON.encode(schema)))
        case .raw, .undecodable:
            if let value = record.value {
                members.append(("valueHex", Formatting.quoted(Formatting.hex(value))))
                members.append(("value", text(value)))
            }
            if case .undecodable(let reason) = meaning {
                members.append(("decodeError", Formatting.quoted(reason)))
            }
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Attribute values as a JSON object, in schema order.
    static func jsonObject(_ fields: [(name: String, value: FieldValue)]) -> String {
        "{" + fields.map { Formatting.quoted($0.name) + ":" + $0.value.json }.joined(separator: ",")
            + "}"
    }

    private static func text(_ bytes: [UInt8]) -> String {
        Formatting.printableText(bytes).map(Formatting.quoted) ?? "null"
    }
}
