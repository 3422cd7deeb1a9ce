import LogStore

/// A stored field as ``EntityFieldReader`` gives it: a string as the bytes its record holds, or
/// any other value decoded.
package enum FieldBytes {
    /// A string's bytes as stored (UTF-8, not checked: `String(decoding:as:)` of them is the
    /// string ``RecordDecoder`` decodes). Valid only during the call that passes them.
    case utf8(UnsafeRawBufferPointer)
    /// Any other value, and a string of a record that is not read in place.
    case value(AttributeValue)
}

/// Reads one entity's records field by field as ``RecordDecoder/decodeFields(keyspace:key:value:_:)``
/// does, but gives the strings of records read in place (the current version's, and those of
/// an older version that only lacks the last fields) as their bytes, without building a
/// `String`: for tools that copy text straight to their output. Made once per entity, so a
/// record costs no lookup of its keyspace.
///
/// Immutable, `Sendable`.
package struct EntityFieldReader: Sendable {
    private let decoder: RecordDecoder
    private let keyspace: String
    private let codec: RecordCodec
    /// Stored field i's type when it is a scalar (a string's bytes are given as they are),
    /// `nil` for a collection: read by type, no shape (an indirect enum) per value.
    private let scalars: [AttributeType?]

    /// The reader of `entity`'s records; `nil` if `decoder`'s schema has no such entity.
    package init?(_ decoder: RecordDecoder, entity: String) {
        guard let codec = decoder.codecs[entity]?.codec else { return nil }
        self.decoder = decoder
        keyspace = entity
        self.codec = codec
        scalars = codec.entity.attributes.indices.map {
            if case .scalar(let type) = codec.shape($0) { type } else { nil }
        }
    }

    /// Calls `field` with each stored field's position and value, in order, as
    /// ``RecordDecoder/decodeFields(keyspace:key:value:_:)`` does.
    /// - Returns: the object's primary key and version.
    /// - Throws: what ``RecordDecoder/decodeFields(keyspace:key:value:_:)`` throws.
    package func decode(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
        _ field: (Int, FieldBytes) -> Void
    ) throws -> (primaryKey: UInt64, version: UInt64) {
        guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else {
            return try decoder.decodeFields(keyspace: keyspace, key: key, value: value) {
                field($0, .value($1))
            }
        }
        let codec = self.codec
        let read = try scalars.withUnsafeBufferPointer { scalars -> UInt64? in
            func read(_ i: Int, _ r: inout ByteReader) throws {
                switch scalars[i] {
                case .string?: field(i, .utf8(try r.lengthPrefixed()))
                case let type?: field(i, .value(try r.value(type)))
                case nil: field(i, .value(try r.value(codec.shape(i))))
                }
            }
            if let version = try codec.decodeCurrent(
                value, primaryKey: pk, field: read, null: { field($0, .value(.null)) })
            {
                return version
            }
            return try codec.decodePrefix(
                value, primaryKey: pk, field: read, null: { field($0, .value(.null)) },
                missing: { field($0, .value($1)) })
        }
        if let read { return (pk, read) }
        return try decoder.decodeFields(keyspace: keyspace, key: key, value: value) {
            field($0, .value($1))
        }
    }
}
