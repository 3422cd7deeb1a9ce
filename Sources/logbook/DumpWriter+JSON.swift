import Foundation
import LogStore
import Logbook

/// The JSON form of dumped records (`--format json`, `jsonl`; FORMAT.md, "Appendix: the JSON
/// of the tools").
extension DumpWriter {
    /// Writes an object put of an entity keyspace, decoding its fields straight into the JSON.
    /// JSON formats only.
    /// - Throws: the decoder's error for a record that does not decode, having written nothing.
    mutating func writeObject(_ record: LogInspector.Record, decoder: RecordDecoder) throws {
        if fieldKeys.entity != record.keyspace {
            let names = decoder.schema.entity(named: record.keyspace)?.fieldNames ?? []
            fieldKeys = (record.keyspace, Self.fieldKeys(names))
        }
        let keys = fieldKeys.keys
        try output.render { out in
            appendSeparator(to: &out)
            appendHeader(record, to: &out)
            out.appendLiteral(",\"entity\":")
            keyspaceJSON.append(record.keyspace, to: &out)
            try record.key.withUnsafeBytes { key in
                try (record.value ?? []).withUnsafeBytes { value in
                    guard let id = RecordDecoder.primaryKey(ofKey: key),
                        let version = RecordDecoder.objectVersion(ofRecord: value)
                    else { throw NotAnObjectRecord() }
                    out.appendLiteral(",\"id\":")
                    out.appendNumber(id)
                    out.appendLiteral(",\"version\":")
                    out.appendNumber(version)
                    out.appendLiteral(",\"object\":{")
                    _ = try decoder.decodeFields(keyspace: record.keyspace, key: key, value: value)
                    {
                        i, value in
                        out.append(contentsOf: keys[i])
                        value.append(as: .json, to: &out)
                    }
                }
            }
            out.appendLiteral("}}")
            appendTerminator(to: &out)
        }
        first = false
    }

    /// Appends what every record's JSON starts with: `{` and `segment`, `frameOffset`,
    /// `offset`, `sequence`, `type`, `keyspace`, then (but for a keyspace definition) `keyHex`
    /// and `key` (text or `null`).
    mutating func appendHeader(_ record: LogInspector.Record, to line: inout [UInt8]) {
        line.appendLiteral("{\"segment\":")
        segmentJSON.append(record.segment, to: &line)
        line.appendLiteral(",\"frameOffset\":")
        line.appendNumber(record.frameOffset)
        line.appendLiteral(",\"offset\":")
        line.appendNumber(record.recordOffset)
        line.appendLiteral(",\"sequence\":")
        line.appendNumber(record.sequence)
        switch record.kind {
        case .put: line.appendLiteral(",\"type\":\"put\",\"keyspace\":")
        case .delete: line.appendLiteral(",\"type\":\"delete\",\"keyspace\":")
        case .defineKeyspace: line.appendLiteral(",\"type\":\"define-keyspace\",\"keyspace\":")
        }
        keyspaceJSON.append(record.keyspace, to: &line)
        guard record.kind != .defineKeyspace else { return }
        line.appendLiteral(",\"keyHex\":")
        AttributeValue.data(Data(record.key)).append(as: .json, to: &line)
        line.appendLiteral(",\"key\":")
        Self.appendText(of: record.key, to: &line)
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
            line.appendLiteral(",\"entity\":")
            line.appendJSON(object.id.entityName)
            line.appendLiteral(",\"id\":")
            line.appendNumber(object.id.primaryKey)
            line.appendLiteral(",\"version\":")
            line.appendNumber(object.version)
            line.appendLiteral(",\"object\":{")
            for (key, field) in zip(
                Self.fieldKeys(object.attributes.map(\.name)), object.attributes)
            {
                line.append(contentsOf: key)
                field.value.append(as: .json, to: &line)
            }
            line.append(UInt8(ascii: "}"))
        case .deletedObject(let entity, let id):
            line.appendLiteral(",\"entity\":")
            keyspaceJSON.append(entity, to: &line)
            line.appendLiteral(",\"id\":")
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

    /// `"name":` for each field, `,` before all but the first.
    static func fieldKeys(_ names: [String]) -> [[UInt8]] {
        names.enumerated().map { i, name in
            var key: [UInt8] = i == 0 ? [] : [UInt8(ascii: ",")]
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
