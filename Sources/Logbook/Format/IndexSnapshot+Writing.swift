import LogStore

/// Where the bytes of a snapshot go as they are made: an array (``IndexSnapshot/encode(definitions:indexes:maxStoredKeys:schemaVersion:)``)
/// or a sidecar being written (``SidecarSink``).
protocol SnapshotSink {
    /// Appends `bytes` after those appended before.
    /// - Throws: what writing them throws.
    mutating func append(_ bytes: [UInt8]) throws
}

/// A snapshot made in memory.
private struct ArraySink: SnapshotSink {
    var data: [UInt8]
    mutating func append(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }
}

/// A snapshot streamed into a sidecar file (``LogStore/writeSidecar(named:sequence:streaming:)``).
struct SidecarSink: SnapshotSink {
    let output: SidecarOutput
    mutating func append(_ bytes: [UInt8]) throws {
        try wrapStoreErrors { try output.append(bytes) }
    }
}

/// One index as a snapshot reads it: its chunks, handed to a consumer in order (entries
/// sorted and distinct across chunks).
struct SnapshotIndexSource {
    let chunks: ((IndexChunk) throws -> Void) throws -> Void

    /// The chunks of an index in memory or loaded.
    init(_ index: OrderedIndex) {
        chunks = { body in for chunk in index.chunks { try body(chunk) } }
    }

    /// Chunks as `produce` hands them over (a merge of sorted runs).
    init(producing produce: @escaping ((IndexChunk) throws -> Void) throws -> Void) {
        chunks = produce
    }
}

extension IndexSnapshot {
    /// The snapshot of `indexes` (per binding: its indexes, `nil` for none or unavailable).
    /// - Throws: nothing in practice (an array sink does not throw, nor do the chunks of indexes
    ///   in memory); the signature is the shared writer's.
    static func encode(
        definitions: [[IndexDefinition]], indexes: [[OrderedIndex]?], maxStoredKeys: [UInt64],
        schemaVersion: UInt32
    ) throws -> [UInt8] {
        // Room for every chunk's ends, bytes and padding, and the summary: the array is not
        // regrown (which would hold up to twice the index's bytes).
        var room = headerSize + (1 << 16)
        for index in indexes.compactMap({ $0 }).joined() {
            for chunk in index.chunks { room += chunk.byteCount + chunk.count * 4 + 3 }
        }
        var sink = ArraySink(data: [])
        sink.data.reserveCapacity(room)
        let header = try write(
            definitions: definitions,
            sources: indexes.map { $0?.map(SnapshotIndexSource.init) },
            maxStoredKeys: maxStoredKeys, schemaVersion: schemaVersion, to: &sink)
        sink.data.replaceSubrange(0..<headerSize, with: header)
        return sink.data
    }

    /// Appends the snapshot of `sources` (per binding: its indexes, `nil` for none or
    /// unavailable) to `sink`, starting with ``headerSize`` zero bytes, and returns the header
    /// that replaces them (which says where the summary lies and its CRC). The bytes are those of
    /// ``encode(definitions:indexes:maxStoredKeys:schemaVersion:)`` of the same indexes, made
    /// one file chunk at a time: memory is one chunk and the summary.
    /// - Throws: what `sink` or a source throws.
    static func write<Sink: SnapshotSink>(
        definitions: [[IndexDefinition]], sources: [[SnapshotIndexSource]?],
        maxStoredKeys: [UInt64], schemaVersion: UInt32, to sink: inout Sink
    ) throws -> [UInt8] {
        var written = headerSize
        try sink.append([UInt8](repeating: 0, count: headerSize))
        var summary = ByteWriter(capacity: 1 << 12)
        summary.varint(UInt64(schemaVersion))
        let entities = definitions.indices.filter { !definitions[$0].isEmpty && sources[$0] != nil }
        summary.varint(UInt64(entities.count))
        for e in entities {
            // Invariant: filtered above.
            let entitySources = sources[e]!
            summary.string(definitions[e][0].entityName)
            summary.varint(maxStoredKeys[e])
            summary.varint(UInt64(entitySources.count))
            for (definition, source) in zip(definitions[e], entitySources) {
                summary.varint(UInt64(definition.fields.count))
                for (name, type) in zip(definition.names, definition.types) {
                    summary.string(name)
                    summary.bytes.append(type.rawValue)
                }
                var chunks = FileChunkWriter()
                try source.chunks { chunk in try chunks.add(chunk, to: &sink, at: &written) }
                try chunks.flush(to: &sink, at: &written)
                let chunkCount = chunks.directory.count / directoryRecordSize
                summary.varint(UInt64(chunks.entries))
                summary.varint(
                    UInt64(loadedMemory(chunks: chunkCount, directory: chunks.directory)))
                summary.varint(UInt64(chunkCount))
                summary.lengthPrefixed(chunks.directory)
            }
        }
        try sink.append(summary.bytes)
        var header = [UInt8](repeating: 0, count: headerSize)
        header[0] = format
        header.storeLE(UInt64(written), at: 8)
        header.storeLE(UInt64(summary.bytes.count), at: 16)
        let crc = header.withUnsafeBytes { header in
            summary.bytes.withUnsafeBytes { summary in
                MappedSidecar.crc32c(
                    summary,
                    extending: MappedSidecar.crc32c(UnsafeRawBufferPointer(rebasing: header[8...])))
            }
        }
        header.storeLE(crc, at: 4)
        return header
    }

    /// The CRC of header bytes 8..<32 followed by the summary.
    static func summaryCRC(_ contents: UnsafeRawBufferPointer) -> UInt32 {
        let offset = Int(contents.loadLE(at: 8, as: UInt64.self))
        return MappedSidecar.crc32c(
            UnsafeRawBufferPointer(rebasing: contents[offset...]),
            extending: MappedSidecar.crc32c(UnsafeRawBufferPointer(rebasing: contents[8..<32])))
    }

    /// The memory the index takes once loaded (as ``OrderedIndex/memoryBytes`` gives it for a
    /// loaded index), from its directory.
    private static func loadedMemory(chunks: Int, directory: [UInt8]) -> Int {
        var memory = chunks * 16 + 64
        directory.withUnsafeBytes { raw in
            for c in 0..<chunks {
                let record = c * directoryRecordSize
                memory +=
                    Int(raw.loadLE(at: record + 4, as: UInt32.self))
                    + Int(raw.loadLE(at: record, as: UInt32.self)) * 4 + 96
            }
        }
        return memory
    }
}

/// The chunk data of one index as a snapshot lays it out: in-memory chunks joined up to
/// ``IndexSnapshot/fileChunkBytes``, each written with its entry ends, bytes and padding, and
/// its directory record kept.
private struct FileChunkWriter {
    /// The directory records of the chunks written.
    private(set) var directory: [UInt8] = []
    /// Entries written or gathered.
    private(set) var entries = 0
    private var ends: [UInt32] = []
    private var bytes: [UInt8] = []
    private var data: [UInt8] = []

    mutating func add<Sink: SnapshotSink>(
        _ chunk: IndexChunk, to sink: inout Sink, at written: inout Int
    ) throws {
        if !bytes.isEmpty && bytes.count + chunk.byteCount > IndexSnapshot.fileChunkBytes {
            try flush(to: &sink, at: &written)
        }
        chunk.withStorage { raw, chunkEnds in
            let base = UInt32(bytes.count)
            bytes.append(contentsOf: raw)
            ends.append(contentsOf: chunkEnds.lazy.map { $0 + base })
        }
        entries += chunk.count
    }

    /// Writes the chunk gathered so far, if any.
    mutating func flush<Sink: SnapshotSink>(to sink: inout Sink, at written: inout Int) throws {
        guard !ends.isEmpty else { return }
        data.removeAll(keepingCapacity: true)
        for end in ends { data.appendLE(end) }
        data.append(contentsOf: bytes)
        let crc = data.withUnsafeBytes { MappedSidecar.crc32c($0) }
        // Padding to a multiple of 4 of the file (every chunk starts at one).
        while (written + data.count) % 4 != 0 { data.append(0) }
        let head = bytes.withUnsafeBytes {
            IndexKey.head(UnsafeRawBufferPointer(rebasing: $0[0..<Int(ends[0])]))
        }
        try sink.append(data)
        written += data.count
        directory.appendLE(UInt32(ends.count))
        directory.appendLE(UInt32(bytes.count))
        directory.appendLE(head)
        directory.appendLE(crc)
        ends.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }
}
