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
        // Only the snapshot's summary is read (its header and last pages).
        let read = try? store.mapSidecar(named: IndexSnapshot.sidecarName).flatMap {
            mapped in
            mapped.sequence == store.lastSequence && !store.skippedDamageAtOpen
                ? try? IndexSnapshot.sizes(mapped.contents, schemaVersion: schema.version) : nil
        }
        guard let sizes = read ?? nil else { return nil }
        var result: [IndexStatistics] = []
        for definition in definitions.joined() {
            guard let size = sizes[definition.name],
                size.entries
                    == (try? store.countLeavingTablesUnchecked(in: definition.entityName))
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
    /// holds, by ``IndexDefinition/name``, from its summary alone.
    /// - Throws: when the summary does not decode or is of another format or schema version.
    static func sizes(_ raw: UnsafeRawBufferPointer, schemaVersion: UInt32) throws -> [String: (
        entries: Int, memoryBytes: Int
    )] {
        var (r, _) = try summary(raw, schemaVersion: schemaVersion)
        var sizes: [String: (entries: Int, memoryBytes: Int)] = [:]
        let entityCount = try r.varint()
        guard entityCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
        for _ in 0..<entityCount {
            let entity = try r.string()
            _ = try r.varint()  // maxStoredKey
            let indexCount = try r.varint()
            guard indexCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
            for _ in 0..<indexCount {
                let header = try readIndexHeader(&r)
                _ = try r.lengthPrefixed()  // the directory
                sizes["\(entity)(\(header.names.joined(separator: ", ")))"] = (
                    header.entries, header.memoryBytes
                )
            }
        }
        guard r.isAtEnd else { throw ByteReader.Truncated() }
        return sizes
    }
}
