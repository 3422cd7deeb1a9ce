import Testing

@testable import LogStore

/// What a forger of `keys.dir` needs: where each table and its CRCs are, how to change an
/// entry, and how to make every CRC match again (so open takes the file for sound).
struct KeyDirectoryForgery {
    /// The parts of `keys.dir` a forger changes: where each table is, and where its block CRCs
    /// and its key count are in the meta section.
    struct Layout {
        var metaLength = 0
        var tables: [(offset: Int, capacity: Int, keysAt: Int, crcsAt: Int, blocks: Int)] = []

        init(_ bytes: [UInt8]) {
            func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
            func u32(_ at: Int) -> Int {
                (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
            }
            func u64(_ at: Int) -> Int {
                (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
            }
            var p = FileHeader.size
            metaLength = u32(p)
            p += 4 + 8
            p += 4 + u32(p) * 28
            let keyspaces = u32(p)
            p += 4
            for _ in 0..<keyspaces {
                p += 2 + u16(p)
                let keysAt = p
                let capacity = u64(p + 16)
                let offset = u64(p + 24)
                let blocks = u32(p + 32)
                tables.append((offset, capacity, keysAt, p + 36, blocks))
                p += 36 + 4 * blocks
            }
        }
    }

    /// Makes every CRC of the file match its bytes again, as a forger would.
    static func reseal(_ bytes: inout [UInt8]) {
        let layout = Layout(bytes)
        for table in layout.tables {
            let length = table.capacity * 12
            let crcs = bytes.withUnsafeBytes {
                KeyDirectoryFile.blockCRCs(
                    UnsafeRawBufferPointer(rebasing: $0[table.offset..<table.offset + length]),
                    blockSize: KeyDirectoryFile.blockSize(
                        version: $0.loadLE(at: 8, as: UInt16.self)))
            }
            for (i, crc) in crcs.enumerated() { store(crc, in: &bytes, at: table.crcsAt + 4 * i) }
        }
        let end = FileHeader.size + layout.metaLength - 4
        let crc = bytes.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size..<end]))
        }
        store(crc, in: &bytes, at: end)
    }

    /// The same file as version 1 wrote it: block CRCs of 1 MiB in the meta section (shorter
    /// now; the tables stay where they are, past it), then the meta and header CRCs.
    static func asVersion1(_ bytes: [UInt8]) -> [UInt8] {
        let layout = Layout(bytes)
        let metaStart = FileHeader.size
        var meta: [UInt8] = []
        var p = metaStart + 4
        for table in layout.tables {
            meta += bytes[p..<table.crcsAt - 4]  // up to this keyspace's block count
            let crcs = bytes.withUnsafeBytes {
                KeyDirectoryFile.blockCRCs(
                    UnsafeRawBufferPointer(
                        rebasing: $0[table.offset..<table.offset + 12 * table.capacity]),
                    blockSize: 1 << 20)
            }
            meta += withUnsafeBytes(of: UInt32(crcs.count).littleEndian, Array.init)
            for crc in crcs { meta += withUnsafeBytes(of: crc.littleEndian, Array.init) }
            p = table.crcsAt + 4 * table.blocks
        }
        meta += bytes[p..<metaStart + layout.metaLength - 4]
        meta = withUnsafeBytes(of: UInt32(meta.count + 8).littleEndian, Array.init) + meta
        let metaCRC = meta.withUnsafeBytes { Checksum.crc32c($0) }
        meta += withUnsafeBytes(of: metaCRC.littleEndian, Array.init)
        var file = bytes
        file.replaceSubrange(metaStart..<metaStart + meta.count, with: meta)
        for i in metaStart + meta.count..<metaStart + layout.metaLength { file[i] = 0 }
        file[8] = 1
        file[9] = 0
        let headerCRC = file.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[0..<20]))
        }
        store(headerCRC, in: &file, at: 20)
        return file
    }

    static func store<T: FixedWidthInteger>(_ value: T, in bytes: inout [UInt8], at offset: Int) {
        for i in 0..<MemoryLayout<T>.size {
            bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i))
        }
    }

    static func load32(_ bytes: [UInt8], at offset: Int) -> Int {
        (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }

    /// Slots (file offsets of 12-byte entries) of table `table` that hold an entry.
    static func liveEntries(_ bytes: [UInt8], table: Int = 0) -> [Int] {
        let table = Layout(bytes).tables[table]
        return (0..<table.capacity).map { table.offset + 12 * $0 }.filter { at in
            bytes[at + 8..<at + 12].contains { $0 != 0xFF }
        }
    }

    /// The file offset of the entry of `key` in table `table`.
    static func entry(of key: [UInt8], in bytes: [UInt8], table: Int = 0) -> Int? {
        let hash = key.withUnsafeBytes { KeyDirectory.hash($0) }
        return liveEntries(bytes, table: table).first { UInt32(load32(bytes, at: $0)) == hash }
    }

    /// `index` of `bytes`'s first occurrence of `pattern`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).first {
            bytes[$0..<$0 + pattern.count].elementsEqual(pattern)
        }
    }
}

extension KeyDirectoryForgery {
    /// Every key and value of the store, by walks (checked against point reads), as
    /// `"keyspace/key"`.
    static func contents(_ store: LogStore) throws -> [String: [UInt8]] {
        var all: [String: [UInt8]] = [:]
        for keyspace in try store.keyspaces() {
            try store.forEach(in: keyspace) { key, value in
                all["\(keyspace)/\(String(decoding: key, as: UTF8.self))"] = Array(value)
            }
        }
        for (name, value) in all {
            let parts = name.split(separator: "/", maxSplits: 1)
            #expect(try store.get(Array(parts[1].utf8), in: String(parts[0])) == value)
        }
        return all
    }
}
