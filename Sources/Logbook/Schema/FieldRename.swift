/// A field a schema version renamed: in that version, the attribute or to-one relationship
/// `to` of `entity` is the one the version before called `from`. Stored beside the schema
/// record (FORMAT.md Part 2, "Renames"), so records of older versions decode under the new
/// names without being rewritten.
struct FieldRename: Sendable, Hashable {
    var entity: String
    var from: String
    var to: String

    /// `count: varint, (entity: string, from: string, to: string)[count]`.
    static func encode(_ renames: [FieldRename]) -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        w.varint(UInt64(renames.count))
        for rename in renames {
            w.string(rename.entity)
            w.string(rename.from)
            w.string(rename.to)
        }
        return w.bytes
    }

    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` naming the version.
    static func decode(_ bytes: [UInt8], version: UInt32) throws -> [FieldRename] {
        try bytes.withUnsafeBytes { buffer in
            var r = ByteReader(buffer)
            do {
                let count = try r.varint()
                guard count <= UInt64(buffer.count) else { throw ByteReader.Truncated() }
                var renames: [FieldRename] = []
                for _ in 0..<count {
                    renames.append(
                        FieldRename(
                            entity: try r.string(), from: try r.string(), to: try r.string()))
                }
                guard r.isAtEnd else { throw ByteReader.Truncated() }
                return renames
            } catch is ByteReader.Truncated {
                throw LogbookError.corruptRecord(
                    entity: Keyspaces.meta, key: "renames:\(version)",
                    reason: "the renames of schema version \(version) do not decode")
            }
        }
    }
}
