import LogStore

/// The indexes as the store's sidecar holds them (FORMAT.md Part 2, "Index sidecar"), laid
/// out so that opening a store maps the file and uses each index chunk's bytes in place,
/// reading only a small summary at open:
///
/// ```
/// snapshot := format: u8 = 2, zero: [3]u8, summaryCRC: u32, summaryOffset: u64,
///             summaryLength: u64, zero: u64,
///             chunkData[...],              // from offset 32, each at a multiple of 4
///             summary                      // at summaryOffset, to the end
/// chunkData := end: u32[entryCount], entries: [byteCount]u8, zero padding to 4
/// summary  := schemaVersion: varint, entityCount: varint, entity[entityCount]
/// entity   := name: string, maxStoredKey: varint, indexCount: varint, index[indexCount]
/// index    := fieldCount: varint, (name: string, type: u8)[fieldCount],
///             entryCount: varint, memoryBytes: varint, chunkCount: varint,
///             directory: varint length, (entryCount: u32, byteCount: u32, head: u64,
///             crc: u32)[chunkCount]
/// ```
/// A snapshot is used only when it describes the store exactly: its sidecar's sequence is
/// the store's last, open skipped nothing, the schema version is the same, and every index
/// has one entry per stored object. Otherwise the entity's indexes are built from records.
/// Each chunk is checked before its first use (``IndexChunk``).
enum IndexSnapshot {
    /// The sidecar `name` of `store`, mapped, if it describes the store's last commit and
    /// recovery skipped nothing; else why not (`called` names the file in the reason).
    static func current(named name: String, in store: LogStore, called: String) -> Result<
        MappedSidecar, Stale
    > {
        let mapped: MappedSidecar
        do {
            guard let found = try store.mapSidecar(named: name) else {
                return .failure(Stale(reason: "no \(called)"))
            }
            mapped = found
        } catch {
            return .failure(Stale(reason: "the \(called) was not used: \(error)"))
        }
        guard mapped.sequence == store.lastSequence, !store.skippedDamageAtOpen else {
            return .failure(
                Stale(
                    reason:
                        "the \(called) describes commit \(mapped.sequence), the store is at \(store.lastSequence)"
                ))
        }
        return .success(mapped)
    }

    /// The name LogStore's sidecar calls take (the file is `logbook-indexes.sidecar`).
    static let sidecarName = "logbook-indexes"
    static let format: UInt8 = 2
    static let headerSize = 32
    /// The size a written chunk aims at (in-memory chunks are joined up to it).
    static let fileChunkBytes = 16_384
    /// Bytes of one chunk's directory record.
    static let directoryRecordSize = 20

    /// What loading found: per binding, the indexes read (`nil`: build them), the highest
    /// stored primary key, and why the sidecar was not used, if it was not.
    struct Loaded {
        var indexes: [[OrderedIndex]?]
        var maxStoredKeys: [UInt64]
        var note: String?
        /// Per binding: where the checks of its loaded chunks report (`nil` unless loaded).
        var checks: [LoadedChunkCheck?]
    }

    /// Reads the indexes of `definitions` from `store`'s sidecar where it describes the store.
    static func load(from store: LogStore, definitions: [[IndexDefinition]], schemaVersion: UInt32)
        -> Loaded
    {
        var loaded = Loaded(
            indexes: Array(repeating: nil, count: definitions.count),
            maxStoredKeys: Array(repeating: 0, count: definitions.count),
            checks: Array(repeating: nil, count: definitions.count))
        let mapped: MappedSidecar
        switch current(named: sidecarName, in: store, called: "index sidecar") {
        case .success(let found): mapped = found
        case .failure(let why):
            loaded.note = why.reason
            return loaded
        }
        parse(
            mapped, store: store, definitions: definitions, schemaVersion: schemaVersion,
            into: &loaded)
        return loaded
    }

    /// The summary of a snapshot's contents, its CRC checked: a reader over it, and where the
    /// chunk data ends.
    /// - Throws: ``Stale`` for another format, ``ByteReader/Truncated`` for damage.
    static func summary(_ raw: UnsafeRawBufferPointer, schemaVersion: UInt32) throws -> (
        reader: ByteReader, dataEnd: Int
    ) {
        guard raw.count >= headerSize else { throw ByteReader.Truncated() }
        guard raw[0] == format else {
            throw Stale(reason: "the index sidecar is of another format (\(raw[0]))")
        }
        let offset = raw.loadLE(at: 8, as: UInt64.self)
        let length = raw.loadLE(at: 16, as: UInt64.self)
        guard raw[1] == 0, raw[2] == 0, raw[3] == 0,
            offset >= UInt64(headerSize), offset <= UInt64(raw.count),
            length == UInt64(raw.count) - offset,
            raw.loadLE(at: 4, as: UInt32.self) == summaryCRC(raw)
        else { throw ByteReader.Truncated() }
        var r = ByteReader(UnsafeRawBufferPointer(rebasing: raw[Int(offset)...]))
        guard try r.varint() == UInt64(schemaVersion) else {
            throw Stale(reason: "the index sidecar is of another schema version")
        }
        return (r, Int(offset))
    }

    /// Reads the indexes from a mapped sidecar into `loaded`; on a mismatch or damage, none
    /// (with the reason in its note).
    private static func parse(
        _ mapped: MappedSidecar, store: LogStore, definitions: [[IndexDefinition]],
        schemaVersion: UInt32, into loaded: inout Loaded
    ) {
        let raw = mapped.contents
        do {
            // Ends are read in place as native integers: little-endian and aligned only.
            guard UInt32(littleEndian: 1) == 1, Int(bitPattern: raw.baseAddress) % 4 == 0 else {
                throw Stale(reason: "the index sidecar cannot be mapped here")
            }
            var (r, dataEnd) = try summary(raw, schemaVersion: schemaVersion)
            var data = headerSize
            let entityCount = try r.varint()
            guard entityCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
            for _ in 0..<entityCount {
                try readEntity(
                    &r, raw: raw, data: &data, mapped: mapped, store: store,
                    definitions: definitions, into: &loaded)
            }
            guard r.isAtEnd, data == dataEnd else { throw ByteReader.Truncated() }
        } catch let stale as Stale {
            loaded = Loaded(
                indexes: Array(repeating: nil, count: definitions.count),
                maxStoredKeys: loaded.maxStoredKeys, note: stale.reason,
                checks: Array(repeating: nil, count: definitions.count))
        } catch {
            loaded = Loaded(
                indexes: Array(repeating: nil, count: definitions.count),
                maxStoredKeys: loaded.maxStoredKeys, note: undecodable,
                checks: Array(repeating: nil, count: definitions.count))
        }
    }

    /// The note of a sidecar whose snapshot does not decode (damage, not staleness).
    static let undecodable = "the index sidecar does not decode"

    /// The sidecar does not describe the store (not damage: it is just out of date).
    struct Stale: Error {
        var reason: String
    }

    /// One index's fields, entry count and loaded memory, before its directory.
    struct IndexHeader {
        var names: [String]
        var types: [AttributeType]
        var entries: Int
        var memoryBytes: Int
        var chunkCount: Int
    }

    static func readIndexHeader(_ r: inout ByteReader) throws -> IndexHeader {
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
        let entries = try r.varint()
        let memory = try r.varint()
        let chunkCount = try r.varint()
        guard entries <= UInt64(Int32.max) * 16, memory <= UInt64(Int.max / 2),
            chunkCount <= UInt64(r.buffer.count)
        else { throw ByteReader.Truncated() }
        return IndexHeader(
            names: names, types: types, entries: Int(entries), memoryBytes: Int(memory),
            chunkCount: Int(chunkCount))
    }

    private static func readEntity(
        _ r: inout ByteReader, raw: UnsafeRawBufferPointer, data: inout Int,
        mapped: MappedSidecar, store: LogStore, definitions: [[IndexDefinition]],
        into loaded: inout Loaded
    ) throws {
        let name = try r.string()
        let maxStoredKey = try r.varint()
        let indexCount = try r.varint()
        guard indexCount <= UInt64(r.buffer.count) else { throw ByteReader.Truncated() }
        var read: [(header: IndexHeader, index: OrderedIndex)] = []
        let check = LoadedChunkCheck()
        for _ in 0..<indexCount {
            let header = try readIndexHeader(&r)
            let directory = try r.lengthPrefixed()
            guard directory.count == header.chunkCount * directoryRecordSize else {
                throw ByteReader.Truncated()
            }
            read.append(
                (
                    header,
                    try readIndex(
                        header, directory, raw: raw, data: &data, mapped: mapped, check: check)
                ))
        }
        guard
            let e = definitions.firstIndex(where: { $0.first?.entityName == name })
        else { return }
        let count = try wrapStoreErrors { try store.countLeavingTablesUnchecked(in: name) }
        var matched: [OrderedIndex] = []
        for definition in definitions[e] {
            guard
                let found = read.first(where: {
                    $0.header.names == definition.names && $0.header.types == definition.types
                }), found.index.count == count || definition.isLinks
            else { return }  // this entity's indexes are built from its records
            matched.append(found.index)
        }
        loaded.indexes[e] = matched
        loaded.checks[e] = check
        loaded.maxStoredKeys[e] = maxStoredKey
    }

    /// An index over the chunks `directory` lists, read in place from `raw` from offset `data`
    /// on (moved past them); only their places are checked here.
    private static func readIndex(
        _ header: IndexHeader, _ directory: UnsafeRawBufferPointer, raw: UnsafeRawBufferPointer,
        data: inout Int, mapped: MappedSidecar, check: LoadedChunkCheck
    ) throws -> OrderedIndex {
        var offsets: [Int] = []
        var heads: [UInt64] = []
        offsets.reserveCapacity(header.chunkCount)
        heads.reserveCapacity(header.chunkCount)
        var entries = 0
        for c in 0..<header.chunkCount {
            let record = c * directoryRecordSize
            let count = Int(directory.loadLE(at: record, as: UInt32.self))
            let byteCount = Int(directory.loadLE(at: record + 4, as: UInt32.self))
            let head = directory.loadLE(at: record + 8, as: UInt64.self)
            // At least one entry, each of at least its fewest bytes, inside the chunk data.
            let size = count * 4 + byteCount
            guard count > 0, byteCount >= count * IndexKey.minimumEntryBytes,
                size <= raw.count - data,
                heads.last.map({ $0 <= head }) ?? true
            else { throw ByteReader.Truncated() }
            offsets.append(data)
            heads.append(head)
            entries += count
            data += (size + 3) & ~3
            guard data <= raw.count else { throw ByteReader.Truncated() }
        }
        guard entries == header.entries else { throw ByteReader.Truncated() }
        return OrderedIndex(
            loaded: LoadedChunks(raw: raw, directory: directory, offsets: offsets, check: check),
            heads: heads, count: entries, mapping: mapped)
    }
}

/// The chunks of an index read from a snapshot, whose places ``IndexSnapshot`` checked: each
/// made into an ``IndexChunk`` over its bytes in the mapping when first used.
struct LoadedChunks {
    /// The mapped snapshot, and the directory records of the index's chunks in it.
    let raw: UnsafeRawBufferPointer
    let directory: UnsafeRawBufferPointer
    /// Where each chunk's data (ends, then entries) starts in `raw`.
    let offsets: [Int]
    let check: LoadedChunkCheck

    /// Chunk `c`, to be checked against its recorded CRC and heads at its first use.
    func chunk(_ c: Int) -> IndexChunk {
        let record = c * IndexSnapshot.directoryRecordSize
        let count = Int(directory.loadLE(at: record, as: UInt32.self))
        let byteCount = Int(directory.loadLE(at: record + 4, as: UInt32.self))
        let data = offsets[c]
        let endsPointer = (raw.baseAddress! + data).bindMemory(to: UInt32.self, capacity: count)
        return IndexChunk(
            mappedBytes: UnsafeRawBufferPointer(
                rebasing: raw[(data + count * 4)..<(data + count * 4 + byteCount)]),
            ends: UnsafeBufferPointer(start: endsPointer, count: count),
            crc: directory.loadLE(at: record + 16, as: UInt32.self),
            head: directory.loadLE(at: record + 8, as: UInt64.self),
            nextHead: c + 1 < offsets.count
                ? directory.loadLE(
                    at: record + IndexSnapshot.directoryRecordSize + 8, as: UInt64.self)
                : nil,
            check: check)
    }

    /// The bytes chunk `c` holds once made (as ``IndexChunk/memoryBytes``).
    func memoryBytes(_ c: Int) -> Int {
        let record = c * IndexSnapshot.directoryRecordSize
        return Int(directory.loadLE(at: record, as: UInt32.self)) * 4
            + Int(directory.loadLE(at: record + 4, as: UInt32.self)) + 96
    }
}
