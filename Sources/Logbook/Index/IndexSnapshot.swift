import LogStore

/// The indexes as the store's sidecar holds them (FORMAT.md Part 2, "Index sidecar"), so that
/// opening a store reads them instead of decoding every record:
///
/// ```
/// snapshot := format: u8 = 1, schemaVersion: varint, entityCount: varint, entity[entityCount]
/// entity   := name: string, maxStoredKey: varint, indexCount: varint, index[indexCount]
/// index    := fieldCount: varint, (name: string, type: u8)[fieldCount],
///             chunkCount: varint, chunk[chunkCount]
/// chunk    := entryCount: varint, byteCount: varint, length: varint[entryCount],
///             entries: [byteCount]u8        // the entries back to back, in order
/// ```
/// A snapshot is used only when it describes the store exactly: its sidecar's sequence is
/// the store's last, open skipped nothing, the schema version is the same, and every index
/// has one entry per stored object. Otherwise the entity's indexes are built from records.
enum IndexSnapshot {
    static let format: UInt8 = 1

    static func encode(
        definitions: [[IndexDefinition]], indexes: [[OrderedIndex]?], maxStoredKeys: [UInt64],
        schemaVersion: UInt32
    ) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 16)
        w.bytes.append(format)
        w.varint(UInt64(schemaVersion))
        let entities = definitions.indices.filter { !definitions[$0].isEmpty && indexes[$0] != nil }
        w.varint(UInt64(entities.count))
        for e in entities {
            // Invariant: filtered above.
            let entityIndexes = indexes[e]!
            w.string(definitions[e][0].entityName)
            w.varint(maxStoredKeys[e])
            w.varint(UInt64(entityIndexes.count))
            for (definition, index) in zip(definitions[e], entityIndexes) {
                w.varint(UInt64(definition.fields.count))
                for (name, type) in zip(definition.names, definition.types) {
                    w.string(name)
                    w.bytes.append(type.rawValue)
                }
                w.varint(UInt64(index.chunks.count))
                for chunk in index.chunks {
                    w.varint(UInt64(chunk.count))
                    w.varint(UInt64(chunk.bytes.count))
                    for slot in 0..<chunk.count {
                        w.varint(UInt64(Int(chunk.ends[slot]) - chunk.start(slot)))
                    }
                    w.bytes.append(contentsOf: chunk.bytes)
                }
            }
        }
        return w.bytes
    }

    /// What loading found: per binding, the indexes read (`nil`: build them), the highest
    /// stored primary key, and why the sidecar was not used, if it was not.
    struct Loaded {
        var indexes: [[OrderedIndex]?]
        var maxStoredKeys: [UInt64]
        var note: String?
    }

    /// Reads the indexes of `definitions` from `store`'s sidecar where it describes the store.
    static func load(from store: LogStore, definitions: [[IndexDefinition]], schemaVersion: UInt32)
        -> Loaded
    {
        var loaded = Loaded(
            indexes: Array(repeating: nil, count: definitions.count),
            maxStoredKeys: Array(repeating: 0, count: definitions.count))
        // Parsed in place from the file's bytes (no copy of the contents).
        let found: Void?
        do {
            found = try store.withSidecar(named: ContainerIndexes.sidecarName) {
                sequence, contents in
                guard sequence == store.lastSequence, store.recovery.skipped.isEmpty else {
                    loaded.note =
                        "the index sidecar describes commit \(sequence), the store is at \(store.lastSequence)"
                    return
                }
                parse(
                    contents, store: store, definitions: definitions, schemaVersion: schemaVersion,
                    into: &loaded)
            }
        } catch {
            loaded.note = "the index sidecar was not used: \(error)"
            return loaded
        }
        if found == nil { loaded.note = "no index sidecar" }
        return loaded
    }

    /// Reads the indexes from a sidecar's contents into `loaded`; on a mismatch or damage,
    /// none (with the reason in its note).
    private static func parse(
        _ raw: UnsafeRawBufferPointer, store: LogStore, definitions: [[IndexDefinition]],
        schemaVersion: UInt32, into loaded: inout Loaded
    ) {
        do {
            var r = ByteReader(raw)
            guard try r.byte() == format, try r.varint() == UInt64(schemaVersion) else {
                throw Stale(reason: "the index sidecar is of another format or schema version")
            }
            let entityCount = try r.varint()
            guard entityCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
            for _ in 0..<entityCount {
                try readEntity(&r, store: store, definitions: definitions, into: &loaded)
            }
            guard r.isAtEnd else { throw ByteReader.Truncated() }
        } catch let stale as Stale {
            loaded = Loaded(
                indexes: Array(repeating: nil, count: definitions.count),
                maxStoredKeys: loaded.maxStoredKeys, note: stale.reason)
        } catch {
            loaded = Loaded(
                indexes: Array(repeating: nil, count: definitions.count),
                maxStoredKeys: loaded.maxStoredKeys, note: "the index sidecar does not decode")
        }
    }

    /// The sidecar does not describe the store (not damage: it is just out of date).
    private struct Stale: Error {
        var reason: String
    }

    private static func readEntity(
        _ r: inout ByteReader, store: LogStore, definitions: [[IndexDefinition]],
        into loaded: inout Loaded
    ) throws {
        let name = try r.string()
        let maxStoredKey = try r.varint()
        let indexCount = try r.varint()
        guard indexCount <= UInt64(r.buffer.count) else { throw ByteReader.Truncated() }
        var read: [(names: [String], types: [AttributeType], index: OrderedIndex)] = []
        for _ in 0..<indexCount {
            let fieldCount = try r.varint()
            guard fieldCount <= UInt64(r.buffer.count) else { throw ByteReader.Truncated() }
            var names: [String] = []
            var types: [AttributeType] = []
            for _ in 0..<fieldCount {
                names.append(try r.string())
                guard let type = AttributeType(rawValue: try r.byte()) else {
                    throw ByteReader.Truncated()
                }
                types.append(type)
            }
            read.append((names, types, try readIndex(&r)))
        }
        guard
            let e = definitions.firstIndex(where: { $0.first?.entityName == name })
        else { return }
        let count = try wrapStoreErrors { try store.count(in: name) }
        var matched: [OrderedIndex] = []
        for definition in definitions[e] {
            guard
                let found = read.first(where: {
                    $0.names == definition.names && $0.types == definition.types
                }), found.index.count == count
            else { return }  // this entity's indexes are built from its records
            matched.append(found.index)
        }
        loaded.indexes[e] = matched
        loaded.maxStoredKeys[e] = maxStoredKey
    }

    private static func readIndex(_ r: inout ByteReader) throws -> OrderedIndex {
        let index = OrderedIndex()
        let chunkCount = try r.varint()
        guard chunkCount <= UInt64(r.buffer.count - r.offset) else { throw ByteReader.Truncated() }
        var previousLast: [UInt8]? = nil
        for _ in 0..<chunkCount {
            let entries = try r.varint()
            let byteCount = try r.varint()
            guard entries > 0, entries <= UInt64(r.buffer.count - r.offset),
                byteCount <= UInt64(r.buffer.count - r.offset), byteCount >= entries * 9
            else { throw ByteReader.Truncated() }
            var end: UInt64 = 0
            // Entry lengths are varints, nearly always of one byte (entries under 128 bytes):
            // those are read in a plain loop, longer ones through the reader.
            let ends = try [UInt32](unsafeUninitializedCapacity: Int(entries)) { out, count in
                let buffer = r.buffer
                var offset = r.offset
                for i in 0..<Int(entries) {
                    let length: UInt64
                    if offset < buffer.count, buffer[offset] < 0x80 {
                        length = UInt64(buffer[offset])
                        offset += 1
                    } else {
                        r.offset = offset
                        length = try r.varint()
                        offset = r.offset
                    }
                    // Every entry holds at least one field and the 8-byte primary key.
                    guard length >= 9 else { throw ByteReader.Truncated() }
                    end += length
                    guard end <= byteCount else { throw ByteReader.Truncated() }
                    out[i] = UInt32(end)
                    count = i + 1
                }
                r.offset = offset
            }
            guard end == byteCount, byteCount <= UInt64(r.buffer.count - r.offset) else {
                throw ByteReader.Truncated()
            }
            let bytes = Array(r.buffer[r.offset..<(r.offset + Int(byteCount))])
            r.offset += Int(byteCount)
            let chunk = IndexChunk(bytes: bytes, ends: ends)
            // Chunks must follow each other in order.
            if let previousLast {
                let ordered = chunk.withEntry(0) { first in
                    previousLast.withUnsafeBytes { IndexBytes.compare($0, first) < 0 }
                }
                guard ordered else { throw ByteReader.Truncated() }
            }
            previousLast = chunk.withEntry(chunk.count - 1) { Array($0) }
            index.appendLoaded(chunk)
        }
        return index
    }
}
