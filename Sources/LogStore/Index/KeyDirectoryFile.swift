import CCRC32C
import CKeyDirectory

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The key directory file `keys.dir` (FORMAT.md, "Key directory file"): the index as a clean
/// close left it, so that `open` maps it instead of rebuilding it from hints or scans.
///
/// ```
/// file     := header (kind keyDirectory, fileOrder 0), meta, padding, table*
/// meta     := metaLength: u32            // bytes from metaLength through metaCRC
///             lastSequence: u64
///             segments: u32, segment*    // the segments it indexes, in replay order
///             keyspaces: u32, keyspace*  // numbers 1, 2, … in order
///             metaCRC: u32               // crc32c of metaLength ..< metaCRC
/// segment  := order: u64, size: u64, liveBytes: u64,
///             tailCRC: u32               // crc32c of its bytes max(24, size − 4096) ..< size
/// keyspace := nameLength: u16, name, keys: u64, liveBytes: u64, capacity: u64,
///             tableOffset: u64,          // a multiple of 4096
///             blocks: u32, blockCRC: u32 * blocks  // crc32c of each 64 KiB of the table
///                                                  // (version 1: each 1 MiB)
/// table    := capacity × entry (12 bytes: the in-memory layout of ``KeyDirectory/Entry``, whose
///             segment field is the segment's place in the list above)
/// ```
///
/// Open uses it only if every check of ``Replay/loadKeyDirectory(_:)`` passes; its tables are then
/// mapped copy-on-write, so reads page them in from the file and a write copies only the page it
/// touches, and checked at first use (``PendingKeyDirectoryCheck``).
enum KeyDirectoryFile {
    static let name = "keys.dir"
    /// The version this library writes and the newest it reads (FORMAT.md's version rule: a
    /// reader ignores a newer one and rebuilds the index). Version 2 checks tables in blocks of
    /// 64 KiB, so that the first point read after open checks 64 KiB, not 1 MiB; version 1,
    /// still read, in blocks of 1 MiB.
    static let version: UInt16 = 2
    /// The bytes of a table each block CRC covers in a file of `version`.
    static func blockSize(version: UInt16) -> Int { version >= 2 ? 1 << 16 : 1 << 20 }
    /// The block size of the files this library writes.
    static let blockSize = blockSize(version: version)
    static let pageSize = 4096
    /// Bytes of each segment's tail the tail CRC covers.
    static let tailBytes = 4096
    /// A meta section longer than this is refused unread.
    static let maxMetaLength = 64 << 20
    /// MiB of a table the check reads between two releases of their pages: 12 MiB, a whole
    /// number of 12-byte entries and of blocks of either size, so each piece starts at an entry
    /// and at a block (the default of ``LogStoreOptions/keyDirectoryCheckPieceMiB``).
    static let checkPieceMiB = 12

    /// What identifies an index state within one session: a commit or a compaction changes one
    /// of these.
    struct Current: Equatable {
        var lastSequence: UInt64
        var segments: Int
    }

    /// Why a key directory file cannot be used.
    struct Unusable: Error {
        var reason: String
    }

    struct SegmentEntry: Equatable {
        var order: UInt64
        var size: UInt64
        var liveBytes: Int64
        var tailCRC: UInt32
    }

    struct KeyspaceEntry {
        var name: String
        var keys: Int
        var liveBytes: Int64
        var capacity: Int
        var tableOffset: Int
        /// The bytes each of ``blockCRCs`` covers: the file version's block size.
        var blockSize: Int
        var blockCRCs: [UInt32]
    }

    /// What the meta section says.
    struct Meta {
        var lastSequence: UInt64 = 0
        var segments: [SegmentEntry] = []
        var keyspaces: [KeyspaceEntry] = []
    }

    static func path(in directory: String) -> String { directory + "/" + name }

    /// The CRC of a segment's last ``tailBytes`` (the header excluded) of its first `size` bytes.
    static func tailCRC(_ bytes: UnsafeRawBufferPointer, size: Int) -> UInt32 {
        let start = max(FileHeader.size, size - tailBytes)
        guard size > start else { return 0 }
        return Checksum.crc32c(UnsafeRawBufferPointer(rebasing: bytes[start..<size]))
    }

    /// The CRCs of `bytes` a block of `blockSize` bytes at a time (the last may be shorter).
    static func blockCRCs(_ bytes: UnsafeRawBufferPointer, blockSize: Int = blockSize) -> [UInt32] {
        let blocks = (bytes.count + blockSize - 1) / blockSize
        guard blocks > 0 else { return [] }
        return [UInt32](unsafeUninitializedCapacity: blocks) { buffer, initialized in
            logbook_crc32c_blocks(bytes.baseAddress, bytes.count, blockSize, buffer.baseAddress)
            initialized = blocks
        }
    }

    // MARK: - Writing

    /// Writes the key directory file of `state` crash-safely (temporary file, sync, rename,
    /// directory sync): after a crash the directory holds the old file or the new one whole.
    /// Returns `false` (writing nothing) if the state cannot be described: a keyspace not
    /// indexed, or a segment that is not at a commit boundary.
    static func write(_ state: StoreState, directory: String, fileSystem fs: any FileSystem) throws
    {
        // Segments in replay order; an entry's segment field becomes its place in this list.
        let live = state.segments.compactMap { $0 }.sorted { $0.order < $1.order }
        var position = [UInt32](repeating: UInt32.max, count: state.segments.count)
        for (i, segment) in live.enumerated() { position[Int(segment.handle)] = UInt32(i) }
        let identity = live.enumerated().allSatisfy { Int($0.element.handle) == $0.offset }

        var meta = Meta(lastSequence: state.lastSequence)
        for segment in live {
            meta.segments.append(
                SegmentEntry(
                    order: segment.order, size: UInt64(segment.size), liveBytes: segment.liveBytes,
                    tailCRC: tailCRC(segment.bytes(), size: segment.size)))
        }
        // Tables are laid out after the meta section, whose size depends only on the counts.
        var tables: [KeyDirectory.EntryTable] = []
        var names: [String] = []
        for id in 1..<state.keyspaces.nextID {
            names.append(state.keyspaces.name(of: id) ?? "")
            tables.append(state.directories[id].table)
        }
        var metaLength = 4 + 8 + 4 + meta.segments.count * 28 + 4 + 4
        for (i, table) in tables.enumerated() {
            let blocks =
                (table.count * MemoryLayout<KeyDirectory.Entry>.stride + blockSize - 1)
                / blockSize
            metaLength += 2 + names[i].utf8.count + 8 * 4 + 4 + 4 * blocks
        }
        var offset = roundUp(FileHeader.size + metaLength)
        var layouts: [Int] = []
        for table in tables {
            layouts.append(offset)
            offset = roundUp(offset + table.count * MemoryLayout<KeyDirectory.Entry>.stride)
        }
        let fileSize = offset

        let temporary = path(in: directory) + ".tmp"
        let file = try fs.open(temporary, create: true, readOnly: false)
        do {
            try fs.truncate(file, to: 0)
            var bytes = FileHeader(kind: .keyDirectory, fileOrder: 0).encoded()
            bytes.appendLE(UInt32(metaLength))
            bytes.appendLE(meta.lastSequence)
            bytes.appendLE(UInt32(meta.segments.count))
            for segment in meta.segments {
                bytes.appendLE(segment.order)
                bytes.appendLE(segment.size)
                bytes.appendLE(UInt64(bitPattern: segment.liveBytes))
                bytes.appendLE(segment.tailCRC)
            }
            bytes.appendLE(UInt32(tables.count))
            for (i, table) in tables.enumerated() {
                let directoryOfKeyspace = state.directories[i + 1]
                // The table as written: segment fields renumbered to places in the list.
                let crcs = try writeTable(
                    table, renumberedBy: identity ? nil : position, to: file,
                    at: Int64(layouts[i]), fileSystem: fs)
                var name = names[i]
                name.withUTF8 { utf8 in
                    bytes.appendLE(UInt16(utf8.count))
                    bytes.append(contentsOf: utf8)
                }
                bytes.appendLE(UInt64(directoryOfKeyspace.count))
                bytes.appendLE(UInt64(bitPattern: directoryOfKeyspace.liveBytes))
                bytes.appendLE(UInt64(table.count))
                bytes.appendLE(UInt64(layouts[i]))
                bytes.appendLE(UInt32(crcs.count))
                for crc in crcs { bytes.appendLE(crc) }
            }
            let crc = bytes.withUnsafeBytes {
                Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size...]))
            }
            bytes.appendLE(crc)
            // Invariant: the meta section is as long as the layout assumed.
            precondition(bytes.count == FileHeader.size + metaLength, "key directory meta size")
            bytes.append(
                contentsOf: [UInt8](repeating: 0, count: roundUp(bytes.count) - bytes.count))
            try bytes.withUnsafeBytes { try fs.writeAll(file, $0, at: 0) }
            try fs.truncate(file, to: Int64(fileSize))
            try fs.syncData(file)
            try fs.close(file)
        } catch {
            try? fs.close(file)
            try? fs.remove(temporary)
            throw error
        }
        try fs.rename(temporary, to: path(in: directory))
        try fs.syncDirectory(directory)
    }

    /// Entries of a table renumbered and written at a time: 3 MiB, whole blocks of whole
    /// entries, so each piece's block CRCs are the file's.
    static let writePieceEntries = 3 << 20 / MemoryLayout<KeyDirectory.Entry>.stride
    /// Bytes of a table written as it is, a piece at a time: 4 MiB, whole blocks.
    static let writePieceBytes = 4 << 20

    /// Writes `table` to `file` at `offset`, with each entry's segment handle replaced by its
    /// place in the list (`position[handle]`) when `position` is given; returns its block CRCs.
    /// A renumbered table goes through a buffer of ``writePieceEntries`` entries, not a copy of
    /// the whole table (25 MB at 1M keys, which a close after a compaction held beside it).
    private static func writeTable(
        _ table: KeyDirectory.EntryTable, renumberedBy position: [UInt32]?, to file: OpenFile,
        at offset: Int64, fileSystem fs: any FileSystem
    ) throws -> [UInt32] {
        guard let position else {
            // A piece at a time, dropping the pages of a mapped table behind (they stay in the
            // page cache): writing a table mapped from the old file does not pull it all into
            // memory. Pieces are whole blocks, so their CRCs are the blocks' of the whole.
            let raw = table.rawBytes
            let stride = MemoryLayout<KeyDirectory.Entry>.stride
            var crcs: [UInt32] = []
            var start = 0
            while start < raw.count {
                let end = min(start + writePieceBytes, raw.count)
                let piece = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                crcs += blockCRCs(piece)
                try fs.writeAll(file, piece, at: offset + Int64(start))
                table.releasePages(below: end / stride)
                start = end
            }
            return crcs
        }
        let stride = MemoryLayout<KeyDirectory.Entry>.stride
        var piece = [KeyDirectory.Entry](
            repeating: .empty, count: min(writePieceEntries, table.count))
        var crcs: [UInt32] = []
        var first = 0
        while first < table.count {
            let n = min(writePieceEntries, table.count - first)
            for i in 0..<n {
                var entry = table[first + i]
                if !entry.isEmpty { entry.ref.segment = position[Int(entry.ref.segment)] }
                piece[i] = entry
            }
            try piece.withUnsafeBytes { bytes in
                let written = UnsafeRawBufferPointer(rebasing: bytes[..<(n * stride)])
                crcs += blockCRCs(written)
                try fs.writeAll(file, written, at: offset + Int64(first * stride))
            }
            first += n
            table.releasePages(below: first)
        }
        return crcs
    }

    static func roundUp(_ n: Int) -> Int { (n + pageSize - 1) & ~(pageSize - 1) }

    // MARK: - Reading

    /// Reads and checks the header and meta section of the key directory file open as `file`
    /// (of `fileSize` bytes): the header, the meta CRC, and that every table lies inside the
    /// file with a sane capacity.
    static func readMeta(_ file: OpenFile, fileSize: Int, fileSystem fs: any FileSystem) throws
        -> Meta
    {
        #if _endian(big)
            // Tables are in the in-memory layout of a little-endian host.
            throw Unusable(reason: "written for a little-endian host")
        #endif
        guard fileSize >= FileHeader.size + 4 else { throw Unusable(reason: "too short") }
        var head = [UInt8](repeating: 0, count: FileHeader.size + 4)
        guard try head.withUnsafeMutableBytes({ try fs.read(file, into: $0, at: 0) }) == head.count
        else { throw Unusable(reason: "short read") }
        let header: FileHeader
        do {
            header = try head.withUnsafeBytes {
                try FileHeader.decode(
                    UnsafeRawBufferPointer(rebasing: $0[..<FileHeader.size]), kind: .keyDirectory,
                    path: file.path)
            }
        } catch LogStoreError.unsupportedVersion(_, let found, _) {
            throw Unusable(reason: "version \(found) is newer than this library reads")
        } catch {
            throw Unusable(reason: "bad header")
        }
        let blockSize = Self.blockSize(version: header.version)
        let metaLength = Int(
            head.withUnsafeBytes { $0.loadLE(at: FileHeader.size, as: UInt32.self) })
        guard metaLength >= 24, metaLength <= maxMetaLength,
            FileHeader.size + metaLength <= fileSize
        else { throw Unusable(reason: "bad meta length") }
        var bytes = [UInt8](repeating: 0, count: metaLength)
        guard
            try bytes.withUnsafeMutableBytes({
                try fs.read(file, into: $0, at: Int64(FileHeader.size))
            }) == metaLength
        else { throw Unusable(reason: "short read") }
        return try bytes.withUnsafeBytes { meta in
            guard
                Checksum.crc32c(UnsafeRawBufferPointer(rebasing: meta[..<(metaLength - 4)]))
                    == meta.loadLE(at: metaLength - 4, as: UInt32.self)
            else { throw Unusable(reason: "checksum mismatch") }
            var reader = Reader(bytes: UnsafeRawBufferPointer(rebasing: meta[..<(metaLength - 4)]))
            reader.position = 4
            var result = Meta()
            result.lastSequence = try reader.u64()
            let segments = Int(try reader.u32())
            for _ in 0..<segments {
                result.segments.append(
                    SegmentEntry(
                        order: try reader.u64(), size: try reader.u64(),
                        liveBytes: Int64(bitPattern: try reader.u64()), tailCRC: try reader.u32()))
            }
            let keyspaces = Int(try reader.u32())
            for _ in 0..<keyspaces {
                let nameLength = Int(try reader.u16())
                guard let name = String(validating: try reader.bytes(nameLength), as: UTF8.self)
                else { throw Unusable(reason: "a keyspace name is not UTF-8") }
                var entry = KeyspaceEntry(
                    name: name, keys: Int(clamping: try reader.u64()),
                    liveBytes: Int64(bitPattern: try reader.u64()),
                    capacity: Int(clamping: try reader.u64()),
                    tableOffset: Int(clamping: try reader.u64()), blockSize: blockSize,
                    blockCRCs: [])
                let blocks = Int(try reader.u32())
                for _ in 0..<blocks { entry.blockCRCs.append(try reader.u32()) }
                let bytes = entry.capacity &* MemoryLayout<KeyDirectory.Entry>.stride
                guard entry.capacity >= 16, entry.capacity <= 1 << 40,
                    entry.capacity & (entry.capacity - 1) == 0,
                    entry.keys <= entry.capacity / 4 * 3,
                    entry.tableOffset % pageSize == 0,
                    entry.tableOffset >= FileHeader.size + metaLength,
                    entry.tableOffset <= fileSize - bytes,
                    blocks == (bytes + blockSize - 1) / blockSize
                else { throw Unusable(reason: "keyspace \"\(name.prefix(40))\" has a bad table") }
                result.keyspaces.append(entry)
            }
            guard reader.position == reader.bytes.count else {
                throw Unusable(reason: "meta section longer than its entries")
            }
            return result
        }
    }

    /// Bounds-checked little-endian reads of the meta section.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        mutating func bytes(_ n: Int) throws -> UnsafeRawBufferPointer {
            guard n <= bytes.count - position else {
                throw Unusable(reason: "meta section cut short")
            }
            defer { position += n }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<position + n])
        }
        mutating func u16() throws -> UInt16 { try bytes(2).loadLE(at: 0, as: UInt16.self) }
        mutating func u32() throws -> UInt32 { try bytes(4).loadLE(at: 0, as: UInt32.self) }
        mutating func u64() throws -> UInt64 { try bytes(8).loadLE(at: 0, as: UInt64.self) }
    }

    /// Maps the table of `keyspace` from `file` copy-on-write, unread: ``checkTable(_:of:segmentSizes:fileSystem:pieceMiB:)``
    /// (or, for point reads, ``PendingKeyDirectoryCheck``) must pass before anything follows
    /// its entries.
    static func mapTable(
        _ keyspace: KeyspaceEntry, file: OpenFile, fileSystem fs: any FileSystem
    ) throws -> KeyDirectory {
        let length = keyspace.capacity * MemoryLayout<KeyDirectory.Entry>.stride
        let memory = try fs.mapCopyOnWrite(
            file, offset: Int64(keyspace.tableOffset), length: length)
        let table = KeyDirectory.EntryTable(
            capacity: keyspace.capacity, memory: memory,
            dropPages: { fs.releaseUnwrittenCopyOnWritePages($0, length: $1) },
            unmap: { fs.unmapCopyOnWrite($0, length: length) })
        return KeyDirectory(table: table, count: keyspace.keys, liveBytes: keyspace.liveBytes)
    }

    /// Checks the mapped, unwritten table of `directory` (``mapTable(_:file:fileSystem:)``)
    /// against `keyspace`: its block CRCs and (in the same pass) every entry's reference against
    /// `segmentSizes` (the sizes the meta section records, by place in its list) and the count
    /// of entries against the recorded number of keys: a file whose CRCs match may still be
    /// forged, and reads trust the index to name a place inside a segment, and probes to end at
    /// an empty slot.
    /// - Throws: ``Unusable`` for a table that fails.
    static func checkTable(
        _ directory: KeyDirectory, of keyspace: KeyspaceEntry, segmentSizes: [UInt32],
        fileSystem fs: any FileSystem, pieceMiB: Int = checkPieceMiB
    ) throws(Unusable) {
        let table = directory.table
        let length = table.count * MemoryLayout<KeyDirectory.Entry>.stride
        let memory = UnsafeMutableRawPointer(mutating: table.rawBytes.baseAddress!)
        let failsChecksum = Unusable(
            reason: "the table of keyspace \"\(keyspace.name.prefix(40))\" fails its checksum")
        guard !segmentSizes.isEmpty else {
            guard blockCRCs(table.rawBytes, blockSize: keyspace.blockSize) == keyspace.blockCRCs
            else { throw failsChecksum }
            throw Unusable(reason: "it lists no segments")
        }
        // One pass over the table: each four blocks' CRCs, then their entries' references while
        // those bytes are in the cache (a second pass over 25 MB at 1M keys cost 5 ms). The pass
        // goes a piece of `pieceMiB` MiB at a time and drops each piece's pages
        // after it: memory holds one piece, not the table (201 MB at 10M keys).
        var live = 0
        var outside = false
        var crcs = [UInt32](repeating: 0, count: keyspace.blockCRCs.count)
        let stride = MemoryLayout<KeyDirectory.Entry>.stride
        let blockSize = keyspace.blockSize
        let entriesPerPiece = max(pieceMiB / 3 * 3, 3) << 20 / stride
        segmentSizes.withUnsafeBufferPointer { sizes in
            crcs.withUnsafeMutableBufferPointer { crcs in
                let entries = table.rawBytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
                var first = 0
                while first < table.count {
                    let n = min(entriesPerPiece, table.count - first)
                    var pieceLive = 0
                    if logbook_crc32c_blocks_check_entries(
                        entries + first * stride / 4, n, blockSize,
                        crcs.baseAddress! + first * stride / blockSize, sizes.baseAddress,
                        UInt32(sizes.count), UInt32(FileHeader.size), &pieceLive) != 0
                    {
                        outside = true
                    }
                    live += pieceLive
                    fs.releaseUnwrittenCopyOnWritePages(memory + first * stride, length: n * stride)
                    first += n
                }
            }
        }
        guard crcs == keyspace.blockCRCs else { throw failsChecksum }
        if let problem = referenceProblem(
            table, outside: outside, live: live, keys: keyspace.keys, segmentSizes: segmentSizes)
        {
            throw Unusable(reason: "keyspace \"\(keyspace.name.prefix(40))\" has \(problem)")
        }
        // The check read every page; reads will touch again only what they need (from the page
        // cache), so the open store's memory is what it uses.
        fs.releaseUnwrittenCopyOnWritePages(memory, length: length)
    }

    /// Why the entries of `table` cannot be trusted, or `nil`, given what the pass of
    /// `logbook_check_entries` over it found: whether an entry is `outside` the segments (each
    /// live entry must name a segment of the list and an offset past its header and before its
    /// recorded size), and `live` entries where there must be `keys`. (What lies at such an
    /// offset is the segment's, which `verify` checks against the log; a read of it stays inside
    /// the segment's mapping.)
    static func referenceProblem(
        _ table: KeyDirectory.EntryTable, outside: Bool, live: Int, keys: Int,
        segmentSizes: [UInt32]
    ) -> String? {
        if outside {
            // Find the first one for the report (only for a file that is refused).
            for slot in 0..<table.count where !table[slot].isEmpty {
                let ref = table[slot].ref
                if Int(ref.segment) >= segmentSizes.count || ref.offset < UInt32(FileHeader.size)
                    || ref.offset >= segmentSizes[Int(ref.segment)]
                {
                    return
                        "an entry (slot \(slot)) that points outside the segments: segment \(ref.segment) offset \(ref.offset)"
                }
            }
        }
        guard live == keys else { return "\(live) entries for the \(keys) keys it records" }
        return nil
    }
}
