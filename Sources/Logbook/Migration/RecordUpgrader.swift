import LogStore

/// Rewrites object records of older schema versions in the current one as compaction copies
/// them (FORMAT.md Part 2, "Object records"): a record reads the same before and after, keeps
/// its object version, and after a compaction no record it copied needs the older versions'
/// layouts. Records already of the current version, and records that do not decode (damage
/// `verify` must still find), are copied as they are.
///
/// Immutable, `Sendable`: compaction may run on any thread.
struct RecordUpgrader: CompactionRewriter {
    /// By entity (keyspace) name, the codec of its current version.
    private let codecs: [String: RecordCodec]

    init(_ codecs: [RecordCodec]) {
        self.codecs = Dictionary(uniqueKeysWithValues: codecs.map { ($0.entity.name, $0) })
    }

    func rewrites(keyspace: String) -> Bool { codecs[keyspace] != nil }

    func rewrite(_ value: UnsafeRawBufferPointer, in keyspace: String) -> [UInt8]? {
        codecs[keyspace].flatMap { Self.upgraded(value, codec: $0) }
    }

    /// The entity's codec found once per compaction: a record of the current version (every
    /// record, once a store has been compacted since its last migration) then costs the read
    /// of its first varint.
    func preparedRewrite(
        forKeyspace keyspace: String
    ) -> ((UnsafeRawBufferPointer) -> [UInt8]?)? {
        guard let codec = codecs[keyspace] else { return nil }
        return { Self.upgraded($0, codec: codec) }
    }

    /// `value` (a record of `codec`'s entity) written in `codec`'s version, or `nil` if it is
    /// of that version already or does not decode. A record of a version whose fields are the
    /// current ones' first keeps its value bytes (``RecordCodec/upgradedInPlace(_:)``): the
    /// full decode and encode, with a value built per field, was two thirds of `logbook compact`
    /// of a million records after the `employees` app added its fields.
    static func upgraded(_ value: UnsafeRawBufferPointer, codec: RecordCodec) -> [UInt8]? {
        codec.upgradedInPlace(value) ?? upgradedByDecoding(value, codec: codec)
    }

    /// ``upgraded(_:codec:)`` through the record's values, decoded and encoded again.
    static func upgradedByDecoding(_ value: UnsafeRawBufferPointer, codec: RecordCodec)
        -> [UInt8]?
    {
        var reader = ByteReader(value)
        guard let version = try? reader.varint(), version != UInt64(codec.schemaVersion) else {
            return nil
        }
        let fields = codec.entity.attributes
        var values = [AttributeValue](repeating: .null, count: fields.count)
        guard let objectVersion = try? codec.decode(value, key: "", { values[$0] = $1 }) else {
            return nil
        }
        // Invariant (of decode): a required field never reads as null.
        guard !zip(fields, values).contains(where: { !$0.isOptional && $1.isNull }) else {
            return nil
        }
        var writer = ByteWriter(capacity: value.count + 8)
        codec.encode(objectVersion: objectVersion, into: &writer) { i, writer in
            guard !values[i].isNull else { return false }
            writer.value(values[i], as: codec.shape(i))
            return true
        }
        return writer.bytes
    }
}
