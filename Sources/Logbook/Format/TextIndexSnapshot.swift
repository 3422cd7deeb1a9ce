import LogStore

/// The text indexes as the store's text sidecar holds them (FORMAT.md Part 2, "Text index
/// sidecar"), laid out so that opening a store maps the file and uses each chunk's bytes in
/// place, reading only the summary at open:
///
/// ```
/// snapshot := format: u8 = 1, zero: [3]u8, summaryCRC: u32, summaryOffset: u64,
///             summaryLength: u64, zero: u64,
///             chunkBytes[...],             // from offset 32, back to back
///             summary                      // at summaryOffset, to the end
/// summary  := schemaVersion: varint, entityCount: varint, entity[entityCount]
/// entity   := name: string, fieldCount: varint, field: string[fieldCount],
///             documents: varint, tokens: varint, chunkCount: varint, chunk[chunkCount]
/// chunk    := byteCount: varint, entryCount: varint, crc: u32, head: string
/// ```
/// A snapshot is used only when it describes the store exactly: its sidecar's sequence is the
/// store's last, open skipped nothing, the schema version is the same, an entity's searchable
/// fields are the same and it has as many documents as stored objects. Otherwise the entity's
/// text index is built from its records. Each chunk is checked before its first use
/// (``TextChunk``).
enum TextIndexSnapshot {
    /// The name LogStore's sidecar calls take (the file is `logbook-text.sidecar`).
    static let sidecarName = "logbook-text"
    static let format: UInt8 = 1
    static let headerSize = 32

    /// The contents of a sidecar holding `indexes` (per binding; `nil`: none) of the entities
    /// called `names`, whose searchable fields are `fields`.
    static func encode(
        names: [String], fields: [[String]], indexes: [TextIndex?], schemaVersion: UInt32
    ) -> [UInt8] {
        var data = [UInt8](repeating: 0, count: headerSize)
        var summary = ByteWriter(capacity: 1 << 12)
        summary.varint(UInt64(schemaVersion))
        let entities = indexes.indices.filter { indexes[$0] != nil }
        summary.varint(UInt64(entities.count))
        for e in entities {
            // Invariant: filtered above.
            let index = indexes[e]!
            summary.string(names[e])
            summary.varint(UInt64(fields[e].count))
            for field in fields[e] { summary.string(field) }
            summary.varint(UInt64(index.documentCount))
            summary.varint(UInt64(index.tokenCount))
            summary.varint(UInt64(index.chunks.count))
            for (chunk, head) in zip(index.chunks, index.heads) {
                chunk.withBytes { bytes in
                    data.append(contentsOf: bytes)
                    summary.varint(UInt64(bytes.count))
                    summary.varint(UInt64(chunk.entryCount))
                    summary.bytes.appendLE(MappedSidecar.crc32c(bytes))
                    summary.lengthPrefixed(head)
                }
            }
        }
        let summaryOffset = data.count
        data.append(contentsOf: summary.bytes)
        data[0] = format
        data.storeLE(UInt64(summaryOffset), at: 8)
        data.storeLE(UInt64(summary.bytes.count), at: 16)
        data.storeLE(data.withUnsafeBytes { summaryCRC($0) }, at: 4)
        return data
    }

    /// The CRC of header bytes 8..<32 followed by the summary.
    private static func summaryCRC(_ contents: UnsafeRawBufferPointer) -> UInt32 {
        let offset = Int(contents.loadLE(at: 8, as: UInt64.self))
        return MappedSidecar.crc32c(
            UnsafeRawBufferPointer(rebasing: contents[offset...]),
            extending: MappedSidecar.crc32c(UnsafeRawBufferPointer(rebasing: contents[8..<32])))
    }

    /// What loading found: per binding, the index read (`nil`: build it) and where the checks
    /// of its chunks report, and why the sidecar was not used, if it was not.
    struct Loaded {
        var indexes: [TextIndex?]
        var checks: [LoadedChunkCheck?]
        var note: String?
    }

    /// Reads the text indexes of the entities called `names` with searchable fields `fields`
    /// (empty: none) from `store`'s text sidecar, where it describes the store.
    static func load(
        from store: LogStore, names: [String], fields: [[String]], schemaVersion: UInt32
    ) -> Loaded {
        var loaded = Loaded(
            indexes: Array(repeating: nil, count: names.count),
            checks: Array(repeating: nil, count: names.count))
        let mapped: MappedSidecar
        switch IndexSnapshot.current(named: sidecarName, in: store, called: "text index sidecar") {
        case .success(let found): mapped = found
        case .failure(let why):
            loaded.note = why.reason
            return loaded
        }
        do {
            try parse(
                mapped, store: store, names: names, fields: fields, schemaVersion: schemaVersion,
                into: &loaded)
        } catch let stale as IndexSnapshot.Stale {
            loaded = Loaded(
                indexes: Array(repeating: nil, count: names.count),
                checks: Array(repeating: nil, count: names.count), note: stale.reason)
        } catch {
            loaded = Loaded(
                indexes: Array(repeating: nil, count: names.count),
                checks: Array(repeating: nil, count: names.count), note: undecodable)
        }
        return loaded
    }

    /// The note of a sidecar whose snapshot does not decode (damage, not staleness).
    static let undecodable = "the text index sidecar does not decode"

    private static func parse(
        _ mapped: MappedSidecar, store: LogStore, names: [String], fields: [[String]],
        schemaVersion: UInt32, into loaded: inout Loaded
    ) throws {
        let raw = mapped.contents
        guard raw.count >= headerSize else { throw ByteReader.Truncated() }
        guard raw[0] == format else {
            throw IndexSnapshot.Stale(
                reason: "the text index sidecar is of another format (\(raw[0]))")
        }
        let offset = raw.loadLE(at: 8, as: UInt64.self)
        let length = raw.loadLE(at: 16, as: UInt64.self)
        guard raw[1] == 0, raw[2] == 0, raw[3] == 0,
            offset >= UInt64(headerSize), offset <= UInt64(raw.count),
            length == UInt64(raw.count) - offset,
            raw.loadLE(at: 4, as: UInt32.self) == summaryCRC(raw)
        else { throw ByteReader.Truncated() }
        let dataEnd = Int(offset)
        var r = ByteReader(UnsafeRawBufferPointer(rebasing: raw[dataEnd...]))
        guard try r.varint() == UInt64(schemaVersion) else {
            throw IndexSnapshot.Stale(reason: "the text index sidecar is of another schema version")
        }
        var data = headerSize
        let entityCount = try r.varint()
        guard entityCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
        for _ in 0..<entityCount {
            let name = try r.string()
            let fieldCount = try r.varint()
            guard fieldCount <= UInt64(raw.count) else { throw ByteReader.Truncated() }
            var entityFields: [String] = []
            for _ in 0..<fieldCount { entityFields.append(try r.string()) }
            let documents = try r.varint()
            let tokens = try r.varint()
            let chunkCount = try r.varint()
            guard documents <= UInt64(Int.max / 2), tokens <= UInt64(Int.max / 2),
                chunkCount <= UInt64(raw.count)
            else { throw ByteReader.Truncated() }
            let check = LoadedChunkCheck()
            var spans: [(bytes: UnsafeRawBufferPointer, crc: UInt32, entries: Int)] = []
            var heads: [[UInt8]] = []
            for _ in 0..<chunkCount {
                let byteCount = try r.varint()
                let entries = try r.varint()
                guard r.buffer.count - r.offset >= 4 else { throw ByteReader.Truncated() }
                let crc = r.buffer.loadLE(at: r.offset, as: UInt32.self)
                r.offset += 4
                let head = Array(try r.lengthPrefixed())
                guard byteCount > 0, byteCount <= UInt64(dataEnd - data), entries > 0,
                    entries <= byteCount, !head.isEmpty,
                    heads.last.map({ previous in
                        previous.withUnsafeBytes { p in
                            head.withUnsafeBytes { IndexBytes.compare(p, $0) < 0 }
                        }
                    }) ?? true
                else { throw ByteReader.Truncated() }
                spans.append(
                    (
                        UnsafeRawBufferPointer(rebasing: raw[data..<(data + Int(byteCount))]),
                        crc, Int(entries)
                    ))
                heads.append(head)
                data += Int(byteCount)
            }
            // Each chunk is checked against the next one's head too.
            let chunks = spans.indices.map { c in
                TextChunk(
                    mapped: spans[c].bytes, crc: spans[c].crc, entries: spans[c].entries,
                    head: heads[c], nextHead: c + 1 < heads.count ? heads[c + 1] : nil,
                    check: check)
            }
            guard let e = names.firstIndex(of: name), fields[e] == entityFields,
                try wrapStoreErrors({ try store.countLeavingTablesUnchecked(in: name) })
                    == Int(documents)
            else { continue }  // this entity's text index is built from its records
            loaded.indexes[e] = TextIndex(
                loaded: chunks, heads: heads, documents: Int(documents), tokens: Int(tokens),
                mapping: mapped)
            loaded.checks[e] = check
        }
        guard r.isAtEnd, data == dataEnd else { throw ByteReader.Truncated() }
    }
}
