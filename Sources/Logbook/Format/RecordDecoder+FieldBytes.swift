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
/// Immutable after it is made (its scan layout is only read), so `Sendable`.
package final class EntityFieldReader: @unchecked Sendable {
    private let decoder: RecordDecoder
    private let keyspace: String
    private let codec: RecordCodec
    /// Stored field i's type when it is a scalar (a string's bytes are given as they are),
    /// `nil` for a collection: read by type, no shape (an indirect enum) per value.
    private let scalars: [AttributeType?]
    /// The current layout for ``RecordCodec/locate(_:_:count:layout:)``: where each value of a
    /// record starts, found without reference counting.
    private let layout: RecordCodec.ScanLayout
    private let fieldCount: Int

    /// The reader of `entity`'s records; `nil` if `decoder`'s schema has no such entity.
    package init?(_ decoder: RecordDecoder, entity: String) {
        guard let codec = decoder.codecs[entity]?.codec else { return nil }
        self.decoder = decoder
        keyspace = entity
        self.codec = codec
        scalars = codec.entity.attributes.indices.map {
            if case .scalar(let type) = codec.shape($0) { type } else { nil }
        }
        layout = codec.makeScanLayout()
        fieldCount = codec.entity.attributes.count
    }

    deinit { layout.deallocate() }

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
        if fieldCount > 0,
            let version = try withUnsafeTemporaryAllocation(
                of: Int.self, capacity: fieldCount, { try located(value, pk, $0, field) })
        {
            return (pk, version)
        }
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

    /// Reads a record whose values ``RecordCodec/locate(_:_:count:layout:)`` finds (the current
    /// version's, or an older one's that lacks only the last fields, which read as `null`) and
    /// that ends with its last value, as a full decode requires; `nil`, having called nothing,
    /// for any other, which the full decode then reads or reports.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a value that does not
    ///   decode.
    @inline(__always)
    private func located(
        _ value: UnsafeRawBufferPointer, _ pk: UInt64, _ offsets: UnsafeMutableBufferPointer<Int>,
        _ field: (Int, FieldBytes) -> Void
    ) throws -> UInt64? {
        guard RecordCodec.locate(value, offsets, count: fieldCount, layout: layout) else {
            return nil
        }
        var last = fieldCount - 1
        while last >= 0 && offsets[last] < 0 { last -= 1 }
        guard last >= 0 else { return nil }
        return try scalars.withUnsafeBufferPointer { scalars -> UInt64? in
            var r = ByteReader(value)
            do {
                // The record must end with its last value.
                r.offset = offsets[last]
                switch scalars[last] {
                case .string?: _ = try r.lengthPrefixed()
                case let type?: try r.skip(type)
                case nil: _ = try r.value(codec.shape(last))
                }
                guard r.offset == value.count else { return nil }
                r.offset = 0
                _ = try r.varint()
                let objectVersion = try r.varint()
                for i in 0..<fieldCount {
                    let offset = offsets[i]
                    guard offset >= 0 else {
                        field(i, .value(.null))
                        continue
                    }
                    r.offset = offset
                    switch scalars[i] {
                    case .string?: field(i, .utf8(try r.lengthPrefixed()))
                    case let type?: field(i, .value(try r.value(type)))
                    case nil: field(i, .value(try r.value(codec.shape(i))))
                    }
                }
                return objectVersion
            } catch is ByteReader.Truncated {
                throw codec.corrupt(pk)
            }
        }
    }
}
