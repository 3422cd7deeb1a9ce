import Foundation
import LogStore
import TestSupport
import Testing

/// FORMAT.md's worked example, checked against the library and decoded by an independent reader
/// written from the spec alone.
@Suite struct FormatExampleTests {
    static let formatPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../FORMAT.md").standardized.path

    /// The bytes of the first hex dump after "### Example: a small store".
    static func documentedBytes() throws -> [UInt8] {
        let text = try String(contentsOfFile: formatPath, encoding: .utf8)
        let section = try #require(text.range(of: "### Example: a small store"))
        var bytes: [UInt8] = []
        var inBlock = false
        for line in text[section.upperBound...].split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("```") {
                if inBlock { break }
                inBlock = true
                continue
            }
            guard inBlock, let colon = line.firstIndex(of: ":") else { continue }
            let hex = line[line.index(after: colon)...].prefix(41).replacingOccurrences(
                of: " ", with: "")
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                bytes.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
        }
        return bytes
    }

    @Test func theLibraryWritesExactlyTheDocumentedBytes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path)
        var batch = WriteBatch()
        batch.put(b("Ann"), for: b("e1"), in: "people")
        batch.put(b("Bo"), for: b("e2"), in: "people")
        try store.commit(batch)
        try store.delete(b("e1"), in: "people")
        try store.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        #expect(files == ["0000000000010000.hint", "0000000000010000.seg", "LOCK"])
        #expect(readFile(path + "/0000000000010000.seg") == (try Self.documentedBytes()))
    }

    @Test func theDocumentedBytesDecodeByTheGrammar() throws {
        let bytes = try Self.documentedBytes()
        #expect(bytes.count == 139)
        var reader = SpecReader(bytes: bytes)
        #expect(reader.take(8) == Array("LBKSEG\r\n".utf8))
        #expect(reader.u16() == 3)
        #expect(reader.u16() == 0)
        #expect(reader.u64() == 1 << 16)
        #expect(reader.u32() == CRC32CReference.checksum(Array(bytes[0..<20])))
        var operations: [String] = []
        var keyspaces: [UInt64: String] = [:]
        var sequences: [UInt64] = []
        var marks: [UInt64] = []
        while reader.offset < bytes.count {
            let frameStart = reader.offset
            let crc = reader.u32()
            let length = Int(reader.u32())
            #expect(
                crc
                    == CRC32CReference.checksum(
                        Array(bytes[(frameStart + 4)..<(frameStart + 17 + length)])))
            let type = reader.take(1)[0]
            let sequence = reader.u64()
            if type == 5 {  // a mark: its durable size
                #expect(sequence == 0 && length == 8)
                marks.append(reader.u64())
                continue
            }
            #expect(type == 1)  // full
            sequences.append(sequence)
            let end = reader.offset + length
            while reader.offset < end {
                let op = reader.take(1)[0]
                let keyspace = reader.varint()
                let keyLength = Int(reader.varint())
                switch op {
                case 3:
                    keyspaces[keyspace] = String(decoding: reader.take(keyLength), as: UTF8.self)
                case 1:
                    let valueLength = Int(reader.varint())
                    let key = String(decoding: reader.take(keyLength), as: UTF8.self)
                    let value = String(decoding: reader.take(valueLength), as: UTF8.self)
                    operations.append("put \(keyspaces[keyspace]!) \(key)=\(value)")
                case 2:
                    operations.append(
                        "delete \(keyspaces[keyspace]!) \(String(decoding: reader.take(keyLength), as: UTF8.self))"
                    )
                default:
                    Issue.record("unknown op \(op)")
                    return
                }
            }
        }
        #expect(sequences == [1, 2])
        #expect(marks == [67, 114])
        #expect(operations == ["put people e1=Ann", "put people e2=Bo", "delete people e1"])
    }

    @Test func theInspectorShowsTheSameRecords() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        writeFile(path + "/0000000000010000.seg", try Self.documentedBytes())
        var lines: [String] = []
        let summary = try LogInspector.walk(storeAt: path) { record in
            lines.append(
                "\(record.sequence) \(record.frameOffset) \(record.recordOffset) \(record.kind.rawValue) \(record.keyspace) \(String(decoding: record.key, as: UTF8.self))"
            )
        }
        #expect(
            lines == [
                "1 24 41 define-keyspace people ", "1 24 50 put people e1", "1 24 59 put people e2",
                "2 92 109 delete people e1",
            ])
        #expect(
            summary.commits == 2 && summary.records == 4 && summary.problems.isEmpty
                && summary.lastSequence == 2)
    }
}

/// Reads FORMAT.md's primitive types.
private struct SpecReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func take(_ n: Int) -> [UInt8] {
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }
    mutating func u16() -> UInt16 { take(2).reversed().reduce(0) { $0 << 8 | UInt16($1) } }
    mutating func u32() -> UInt32 { take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func u64() -> UInt64 { take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func varint() -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = take(1)[0]
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }
}
