import Foundation
import LogStore
import Logbook

/// The JSON form of dumped records (`--format json`, `jsonl`; FORMAT.md, "Appendix: the JSON
/// of the tools").
extension DumpWriter {
    /// Writes an object put of an entity keyspace, decoding its fields straight into the JSON
    /// (or, for text, into a row).
    /// - Throws: the decoder's error for a record that does not decode, having written nothing.
    mutating func writeObject(_ record: LogInspector.Record, decoder: RecordDecoder) throws {
        if format == .text { return try writeObjectRow(record, decoder: decoder) }
        if fieldKeys.entity != record.keyspace {
            let names = decoder.schema.entity(named: record.keyspace)?.fieldNames ?? []
            fieldKeys = (record.keyspace, Self.fieldKeys(names, first: ",\"object\":{"))
            fieldReader = EntityFieldReader(decoder, entity: record.keyspace)
        }
        let keys = fieldKeys.keys
        try output.render { out in
            appendSeparator(to: &out)
            appendHeader(record, to: &out)
            entityJSON.append(record.keyspace, to: &out)
            try record.key.withUnsafeBytes { key in
                try (record.value ?? []).withUnsafeBytes { value in
                    guard
                        let id = PersistentIdentifier(entityName: record.keyspace, storeKey: key)?
                            .primaryKey,
                        let version = RecordDecoder.objectVersion(ofRecord: value)
                    else { throw NotAnObjectRecord() }
                    out.appendNumber(id)
                    out.appendLiteral(",\"version\":")
                    out.appendNumber(version)
                    if keys.isEmpty { out.appendLiteral(",\"object\":{") }
                    _ = try decoder.decodeFields(keyspace: record.keyspace, key: key, value: value)
                    {
                        i, value in
                        out.append(contentsOf: keys[i])
                        value.append(as: .json, to: &out)
                    }
                }
            }
            if format == .jsonl { out.appendLiteral("}}\n") } else { out.appendLiteral("}}") }
        }
        first = false
    }

    /// ``writeObject(_:decoder:)-(LogInspector.Record,_)`` for a record as the walk visits
    /// it: the line is laid out on the stack from the lent key and value, and handed to the
    /// output in one piece (a line too long for that goes the way of a copied record).
    /// - Throws: the decoder's error for a record that does not decode, having written nothing.
    mutating func writeObject(_ record: LogInspector.VisitedRecord, decoder: RecordDecoder)
        throws
    {
        guard format != .text, let value = record.value else {
            return try writeObject(LogInspector.Record(copying: record), decoder: decoder)
        }
        if fieldKeys.entity != record.keyspace {
            let names = decoder.schema.entity(named: record.keyspace)?.fieldNames ?? []
            fieldKeys = (record.keyspace, Self.fieldKeys(names, first: ",\"object\":{"))
            fieldReader = EntityFieldReader(decoder, entity: record.keyspace)
        }
        guard let fieldReader else {
            return try writeObject(LogInspector.Record(copying: record), decoder: decoder)
        }
        guard
            let id = PersistentIdentifier(entityName: record.keyspace, storeKey: record.key)?
                .primaryKey,
            let version = RecordDecoder.objectVersion(ofRecord: value)
        else { throw NotAnObjectRecord() }
        let keys = fieldKeys.keys
        let written = try withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 16) {
            buffer in
            var line = JSONLine(buffer)
            if format == .json { line.append(first ? "\n  " : ",\n  ") }
            segmentJSON.withJSON(record.segment) { line.append($0) }
            line.append(decimal: record.frameOffset)
            line.append(",\"offset\":")
            line.append(decimal: record.recordOffset)
            line.append(",\"sequence\":")
            line.append(decimal: record.sequence)
            putJSON.withJSON(record.keyspace) { line.append($0) }
            line.append(UInt8(ascii: "\""))
            line.append(hex: record.key)
            line.append(UInt8(ascii: "\""))
            if record.key.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                line.append(",\"key\":null")
            } else if let text = Formatting.printableText(Array(record.key)) {
                line.append(",\"key\":")
                line.append(jsonString: text)
            } else {
                line.append(",\"key\":null")
            }
            entityJSON.withJSON(record.keyspace) { line.append($0) }
            line.append(decimal: id)
            line.append(",\"version\":")
            line.append(decimal: version)
            if keys.isEmpty { line.append(",\"object\":{") }
            _ = try fieldReader.decode(key: record.key, value: value) { i, field in
                line.append(keys[i])
                line.append(field)
            }
            line.append(format == .jsonl ? "}}\n" : "}}")
            guard !line.overflowed else { return false }
            output.render { $0.append(contentsOf: line.bytes) }
            return true
        }
        guard written else {
            return try writeObject(LogInspector.Record(copying: record), decoder: decoder)
        }
        first = false
    }

    /// Appends what every record's JSON starts with: `{` and `segment`, `frameOffset`,
    /// `offset`, `sequence`, `type`, `keyspace`, then (but for a keyspace definition) `keyHex`
    /// and `key` (text or `null`).
    mutating func appendHeader(_ record: LogInspector.Record, to line: inout [UInt8]) {
        segmentJSON.append(record.segment, to: &line)
        line.appendNumber(record.frameOffset)
        line.appendLiteral(",\"offset\":")
        line.appendNumber(record.recordOffset)
        line.appendLiteral(",\"sequence\":")
        line.appendNumber(record.sequence)
        switch record.kind {
        case .put: putJSON.append(record.keyspace, to: &line)
        case .delete: deleteJSON.append(record.keyspace, to: &line)
        case .defineKeyspace:
            defineJSON.append(record.keyspace, to: &line)
            return
        }
        AttributeValue.data(Data(record.key)).append(as: .json, to: &line)
        if let text = Formatting.printableText(record.key) {
            line.appendLiteral(",\"key\":")
            line.appendJSON(text)
        } else {
            line.appendLiteral(",\"key\":null")
        }
    }

    /// Appends the rest of a record's JSON by its meaning, and the closing `}`: an object's
    /// `entity`, `id`, `version`, `object`; a deleted object's `entity` and `id`; a schema
    /// record's `schema`; else `valueHex` and `value` (text or `null`), with `decodeError` when
    /// an entity's record does not decode.
    mutating func appendTail(
        _ meaning: RecordMeaning, of record: LogInspector.Record, to line: inout [UInt8]
    ) {
        switch meaning {
        case .object(let object):
            entityJSON.append(object.id.entityName, to: &line)
            line.appendNumber(object.id.primaryKey)
            line.appendLiteral(",\"version\":")
            line.appendNumber(object.version)
            line.appendLiteral(",\"object\":{")
            let keys = Self.fieldKeys(object.attributes.map(\.name), first: "")
            for (key, field) in zip(keys, object.attributes) {
                line.append(contentsOf: key)
                field.value.append(as: .json, to: &line)
            }
            line.append(UInt8(ascii: "}"))
        case .deletedObject(let entity, let id):
            entityJSON.append(entity, to: &line)
            line.appendNumber(id)
        case .schema(let schema):
            line.appendLiteral(",\"schema\":")
            line.appendText(SchemaJSON.encode(schema))
        case .raw, .undecodable:
            if let value = record.value {
                line.appendLiteral(",\"valueHex\":")
                AttributeValue.data(Data(value)).append(as: .json, to: &line)
                line.appendLiteral(",\"value\":")
                Self.appendText(of: value, to: &line)
            }
            if case .undecodable(let reason) = meaning {
                line.appendLiteral(",\"decodeError\":")
                line.appendJSON(reason)
            }
        }
        line.append(UInt8(ascii: "}"))
    }

    /// `"name":` for each field, after `first` for the first and `,` for the others.
    static func fieldKeys(_ names: [String], first: String) -> [[UInt8]] {
        names.enumerated().map { i, name in
            var key = Array((i == 0 ? first : ",").utf8)
            key.appendJSON(name)
            key.append(UInt8(ascii: ":"))
            return key
        }
    }

    /// The bytes as a JSON string when printable UTF-8, else `null`.
    private static func appendText(of bytes: [UInt8], to line: inout [UInt8]) {
        if let text = Formatting.printableText(bytes) {
            line.appendJSON(text)
        } else {
            line.appendLiteral("null")
        }
    }
}

/// Thrown for a record whose key or value cannot be an object's; the caller shows it raw, with
/// the decoder's reason.
private struct NotAnObjectRecord: Error {}
