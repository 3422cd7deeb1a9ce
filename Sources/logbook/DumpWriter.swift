import LogStore

/// Formats dumped records as aligned text, a JSON array or JSON lines.
///
/// Text columns: segment file, record offset, sequence, type, keyspace, key, value. Object
/// records show their primary key and `attribute=value` pairs; other records show keys and
/// values as quoted text when printable UTF-8, else `0x` hex. Rows are aligned in chunks of 256,
/// with column widths that only grow.
struct DumpWriter {
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

    /// Writes one record; `object` is its decoded form, if it is an object record; `objectID`
    /// the primary key a delete of an object removes.
    mutating func write(
        _ record: LogInspector.Record, object: DecodedObject?, objectID: UInt64? = nil,
        decodeError: String?,
        to output: inout some TextOutputStream
    ) {
        switch format {
        case .text:
            table.append(
                Self.row(record, object: object, objectID: objectID, decodeError: decodeError))
            if table.pendingRows >= 256 { table.flush(to: &output) }
        case .json:
            output.write(first ? "\n  " : ",\n  ")
            output.write(
                Self.json(record, object: object, objectID: objectID, decodeError: decodeError))
        case .jsonl:
            output.write(
                Self.json(record, object: object, objectID: objectID, decodeError: decodeError)
                    + "\n")
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

    private static func row(
        _ record: LogInspector.Record, object: DecodedObject?, objectID: UInt64?,
        decodeError: String?
    ) -> [String] {
        var row = [
            record.segment, String(record.recordOffset), String(record.sequence),
            record.kind.rawValue, record.keyspace,
        ]
        switch record.kind {
        case .defineKeyspace:
            row += ["", ""]
        case .delete:
            row += [objectID.map { String($0) } ?? Formatting.display(record.key), ""]
        case .put:
            if let object {
                row.append(String(object.id))
                row.append(
                    object.fields.map { "\($0.name)=\($0.value.display)" }.joined(separator: " "))
            } else {
                row.append(Formatting.display(record.key))
                var value = Formatting.display(record.value ?? [])
                if let decodeError { value += "  (does not decode: \(decodeError))" }
                row.append(value)
            }
        }
        return row
    }

    /// One record as a JSON object: `segment`, `frameOffset`, `offset`, `sequence`, `type`,
    /// `keyspace`, then `keyHex` and `key` (text or `null`), and for a put either `entity`, `id`,
    /// `version`, `object` (decoded) or `valueHex` and `value` (text or `null`); a delete of an
    /// object adds `entity` and `id`.
    static func json(
        _ record: LogInspector.Record, object: DecodedObject?, objectID: UInt64?,
        decodeError: String?
    ) -> String {
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
        if let objectID {
            members.append(("entity", Formatting.quoted(record.keyspace)))
            members.append(("id", String(objectID)))
        }
        if let object {
            members.append(("entity", Formatting.quoted(object.entity)))
            members.append(("id", String(object.id)))
            members.append(("version", String(object.version)))
            members.append(("object", jsonObject(object.fields)))
        } else if let value = record.value {
            members.append(("valueHex", Formatting.quoted(Formatting.hex(value))))
            members.append(("value", text(value)))
            if let decodeError { members.append(("decodeError", Formatting.quoted(decodeError))) }
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
