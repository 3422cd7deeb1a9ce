import Foundation
import TestSupport
import Testing

@testable import LogStore

/// Hint version 3 (packed entries: op and keyspace in one byte) and the older hints a store may
/// still hold (FORMAT.md, "Hint files" and "Versioning rule").
@Suite struct HintVersionTests {
    private func options() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 2048
        options.autoCompactionDeadFraction = nil
        return options
    }

    private func hintFiles(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
            $0.hasSuffix(".hint")
        }.sorted().map { "\(path)/\($0)" }
    }

    /// A store whose puts and deletes use keyspace 1 ("k", packed entries) and keyspace 70
    /// ("far", past the packed range, so written the long way): every entry form a version-3
    /// hint has.
    private func build(_ path: String) throws -> [String: [UInt8]] {
        let store = try LogStore(path: path, options: options())
        try store.put([1], for: [0], in: "k", durability: .buffered)
        for k in 0..<68 {
            try store.put([1], for: [UInt8(k)], in: "pad\(k)", durability: .buffered)
        }
        var model: [String: [UInt8]] = ["k/\u{0}": [1]]
        for i in 0..<400 {
            let keyspace = i % 3 == 0 ? "far" : "k"
            let key = "key\(i % 150)"
            if i % 7 == 3 {
                try store.delete(Array(key.utf8), in: keyspace, durability: .buffered)
                model["\(keyspace)/\(key)"] = nil
            } else {
                let value = [UInt8](repeating: UInt8(i % 256), count: 30)
                try store.put(value, for: Array(key.utf8), in: keyspace, durability: .buffered)
                model["\(keyspace)/\(key)"] = value
            }
        }
        try store.close()
        return model
    }

    private func contents(_ store: LogStore) throws -> [String: [UInt8]] {
        var all: [String: [UInt8]] = [:]
        for keyspace in ["k", "far"] {
            try store.forEach(in: keyspace) { key, value in
                all["\(keyspace)/\(String(decoding: key, as: UTF8.self))"] = Array(value)
            }
        }
        return all
    }

    /// The entries of a hint body (after the header, before the trailer) as (op, keyspace,
    /// delta) or a definition's bytes, decoded by this test's own reading of FORMAT.md.
    private enum Entry: Equatable {
        case operation(op: UInt8, keyspace: UInt64, delta: UInt64)
        case definition([UInt8])
    }

    private func entries(_ hint: [UInt8], packed: Bool) -> [Entry] {
        hint.withUnsafeBytes { bytes in
            var list: [Entry] = []
            var offset = FileHeader.size
            let end = bytes.count - Hint.trailerSize
            while offset < end {
                let first = bytes[offset]
                if first == RecordOp.defineKeyspace {
                    let start = offset
                    _ = RecordFormat.decode(bytes, at: &offset, end: end)!
                    list.append(.definition(Array(bytes[start..<offset])))
                    continue
                }
                offset += 1
                if packed && first & 0x80 != 0 {
                    let delta = Varint.read(bytes, &offset)!
                    list.append(
                        .operation(
                            op: first & 0x40 != 0 ? RecordOp.delete : RecordOp.put,
                            keyspace: UInt64(first & 0x3F), delta: delta))
                } else {
                    let keyspace = Varint.read(bytes, &offset)!
                    let delta = Varint.read(bytes, &offset)!
                    list.append(.operation(op: first, keyspace: keyspace, delta: delta))
                }
            }
            return list
        }
    }

    /// The version-2 hint saying what `hint` (version 3) says: every entry the long way.
    private func downgrade(_ hint: [UInt8]) -> [UInt8] {
        var header = Array(hint[0..<FileHeader.size])
        header.storeLE(UInt16(2), at: 8)
        resealFileHeader(&header)
        var out = header
        for entry in entries(hint, packed: true) {
            switch entry {
            case .definition(let bytes): out += bytes
            case .operation(let op, let keyspace, let delta):
                out.append(op)
                Varint.append(keyspace, to: &out)
                Varint.append(delta, to: &out)
            }
        }
        out += hint[(hint.count - Hint.trailerSize)..<(hint.count - 4)]
        let crc = out.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size...]))
        }
        out.appendLE(crc)
        return out
    }

    @Test func hintsAreVersion3WithOnePackedByteForLowKeyspaces() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        _ = try build(path)
        var packed = 0
        var long = 0
        for file in hintFiles(path) {
            let hint = readFile(file)
            #expect(hint.withUnsafeBytes { $0.loadLE(at: 8, as: UInt16.self) } == 3)
            for case .operation(let op, let keyspace, _) in entries(hint, packed: true) {
                #expect(op == RecordOp.put || op == RecordOp.delete)
                #expect(keyspace > 0)
                if keyspace < 64 { packed += 1 } else { long += 1 }
            }
            // Every entry of a keyspace below 64 is packed: written the long way, each would
            // take exactly one byte more (its keyspace varint).
            let low = entries(hint, packed: true).filter {
                if case .operation(_, let keyspace, _) = $0 { return keyspace < 64 }
                return false
            }.count
            #expect(downgrade(hint).count - hint.count == low)
        }
        #expect(packed > 0 && long > 0, "packed \(packed), long \(long)")
    }

    @Test func aStoreWithVersion2HintsOpensFromThemUnchanged() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let model = try build(path)
        let files = hintFiles(path)
        #expect(files.count == segmentFiles(path).count)
        var old: [String: [UInt8]] = [:]
        for file in files {
            let hint = readFile(file)
            let downgraded = downgrade(hint)
            #expect(downgraded.count > hint.count)
            // The same entries, only written the long way.
            #expect(entries(downgraded, packed: false) == entries(hint, packed: true))
            writeFile(file, downgraded)
            old[file] = downgraded
        }
        let store = try LogStore(path: path, options: options())
        // Used, not ignored: no note, no ignored hint, and the files left as they were.
        #expect(store.recovery.notes.isEmpty, "\(store.recovery.notes)")
        #expect(store.recovery.ignoredHints.isEmpty)
        #expect(try contents(store) == model)
        try store.close()
        // The sealed segments' hints are as they were (the active segment's is rewritten at
        // close, in the current version).
        for file in files.dropLast() { #expect(readFile(file) == old[file]) }
        let report = try LogInspector.verify(storeAt: path)
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    @Test func aPackedEntryInAVersion2HintIsRefusedAndTheSegmentScanned() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let model = try build(path)
        // A version-3 hint relabelled version 2: its packed bytes are unknown entry types there.
        let file = hintFiles(path)[1]
        var hint = readFile(file)
        hint.storeLE(UInt16(2), at: 8)
        resealFileHeader(&hint)
        writeFile(file, hint)
        let store = try LogStore(path: path, options: options())
        #expect(store.recovery.notes.contains { $0.contains("hint") }, "\(store.recovery.notes)")
        #expect(try contents(store) == model)
    }

    @Test func aHintOfANewerVersionIsIgnoredNotFatal() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let model = try build(path)
        let file = hintFiles(path)[0]
        var hint = readFile(file)
        hint.storeLE(UInt16(4), at: 8)
        resealFileHeader(&hint)
        writeFile(file, hint)
        let store = try LogStore(path: path, options: options())
        #expect(store.recovery.notes.contains { $0.contains("hint") }, "\(store.recovery.notes)")
        #expect(try contents(store) == model)
    }
}
