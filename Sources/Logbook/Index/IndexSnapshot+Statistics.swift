import LogStore

extension IndexStatistics {
    /// The indexes of the store's schema with their entry counts and the memory they take once
    /// loaded, read from the store's index sidecar without loading them (for tools that open
    /// the bare store); `nil` when the schema has indexes but no sidecar describes the store
    /// as it is (opening it then builds them from the records), `[]` when it has none.
    /// - Throws: ``LogbookError`` for a stored schema that does not decode.
    package static func stored(in store: LogStore) throws -> [IndexStatistics]? {
        guard let schema = try Schema.stored(in: store) else { return [] }
        let definitions = schema.entities.enumerated().map {
            IndexDefinition.all(of: $0.element, binding: $0.offset)
        }
        guard definitions.contains(where: { !$0.isEmpty }) else { return [] }
        // Walked in place in the file's bytes (no copy of the contents).
        let read = try? store.withSidecar(named: ContainerIndexes.sidecarName) {
            sequence, contents in
            sequence == store.lastSequence && store.recovery.skipped.isEmpty
                ? try? IndexSnapshot.sizes(contents, schemaVersion: schema.version) : nil
        }
        guard let sizes = read ?? nil else { return nil }
        var result: [IndexStatistics] = []
        for definition in definitions.joined() {
            guard let size = sizes[definition.name],
                size.entries == (try? store.count(in: definition.entityName))
            else { return nil }
            result.append(
                IndexStatistics(
                    entity: definition.entityName, fields: definition.names,
                    isUnique: definition.isUnique, entries: size.entries,
                    memoryBytes: size.memoryBytes))
        }
        return result
    }
}

extension IndexSnapshot {
    /// Entry count and loaded memory (as ``OrderedIndex/memoryBytes``) of each index a snapshot
    /// holds, by ``IndexDefinition/name``, walking only its chunk headers and entry lengths.
    /// - Throws: when the snapshot does not decode or is of another format or schema version.
    static func sizes(_ raw: UnsafeRawBufferPointer, schemaVersion: UInt32) throws -> [String: (
        entries: Int, memoryBytes: Int
    )] {
        do {
            var r = ByteReader(raw)
            guard try r.byte() == format, try r.varint() == UInt64(schemaVersion) else {
                throw ByteReader.Truncated()
            }
            var sizes: [String: (entries: Int, memoryBytes: Int)] = [:]
            let entityCount = try r.varint()
            guard entityCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
            for _ in 0..<entityCount {
                let entity = try r.string()
                _ = try r.varint()  // maxStoredKey
                let indexCount = try r.varint()
                guard indexCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
                for _ in 0..<indexCount {
                    let fieldCount = try r.varint()
                    guard fieldCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
                    var names: [String] = []
                    for _ in 0..<fieldCount {
                        names.append(try r.string())
                        _ = try r.byte()  // type
                    }
                    let chunkCount = try r.varint()
                    guard chunkCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
                    var entries = 0
                    var memory = Int(chunkCount) * 16 + 64
                    for _ in 0..<chunkCount {
                        let count = try r.varint()
                        let byteCount = try r.varint()
                        guard count <= UInt64(raw.count), byteCount <= UInt64(raw.count) else {
                            throw ByteReader.Truncated()
                        }
                        for _ in 0..<count { _ = try r.varint() }
                        guard Int(byteCount) <= raw.count - r.offset else {
                            throw ByteReader.Truncated()
                        }
                        r.offset += Int(byteCount)
                        entries += Int(count)
                        memory += Int(byteCount) + Int(count) * 4 + 96
                    }
                    sizes["\(entity)(\(names.joined(separator: ", ")))"] = (entries, memory)
                }
            }
            guard r.isAtEnd else { throw ByteReader.Truncated() }
            return sizes
        }
    }
}
