/// The stored form of a history retention policy, under ``Keyspaces/historyRetentionKey``
/// (FORMAT.md Part 2, "History").
extension HistoryRetention {
    private static var keyText: String {
        String(decoding: Keyspaces.historyRetentionKey, as: UTF8.self)
    }

    /// `kind: u8` (0 until compaction, 1 saves, 2 days), then `u64` little-endian: the number of
    /// saves, or the days as a double's bit pattern.
    var encoded: [UInt8] {
        var w = ByteWriter(capacity: 9)
        switch self {
        case .untilCompaction:
            w.bytes.append(0)
            w.bytes.append(contentsOf: repeatElement(0, count: 8))
        case .saves(let n):
            w.bytes.append(1)
            withUnsafeBytes(of: UInt64(max(n, 0)).littleEndian) { w.bytes.append(contentsOf: $0) }
        case .days(let days):
            w.bytes.append(2)
            w.double(days)
        }
        return w.bytes
    }

    /// Decodes a stored policy.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
    init(decoding bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count == 9 else {
            throw LogbookError.corruptRecord(
                entity: Keyspaces.meta, key: Self.keyText, reason: "it is not 9 bytes")
        }
        let value = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        switch bytes[0] {
        case 0: self = .untilCompaction
        case 1: self = .saves(Int(clamping: value))
        case 2: self = .days(Double(bitPattern: value))
        default:
            throw LogbookError.corruptRecord(
                entity: Keyspaces.meta, key: Self.keyText,
                reason: "unknown kind \(bytes[0]) (written by a newer Logbook?)")
        }
    }
}
