/// Keeping the bytes recovery cuts (FORMAT.md, "Recovery"): before a torn tail is truncated away,
/// it is copied to `XXXXXXXXXXXXXXXX-OOOOOOOOOOOOOOOO.cut` beside the segments (the segment's
/// order and the offset of the cut, in hex), crash-safely. Recovery never destroys bytes: what it
/// cut can be looked at, and is removed only by a compaction or `logbook verify --discard-cut`.
enum CutBytes {
    /// The name of the file that keeps what was cut from the segment of `order` at `offset`;
    /// `attempt` > 0 when an earlier cut at the same place kept other bytes.
    static func fileName(order: UInt64, offset: Int, attempt: Int) -> String {
        hex16(order) + "-" + hex16(UInt64(offset)) + (attempt == 0 ? "" : "-\(attempt)") + ".cut"
    }

    /// Copies `segment`'s bytes from `offset` to its end into a new cut file in `directory`
    /// (written as `NAME.tmp`, synced, renamed, and the directory synced), or finds one that
    /// already holds exactly them (a crash after an earlier copy but before its truncation).
    /// Returns its path.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``; the segment is then left uncut.
    static func keep(
        _ segment: Segment, from offset: Int, directory: String, fileSystem fs: any FileSystem
    ) throws -> String {
        let bytes = UnsafeRawBufferPointer(rebasing: segment.bytes()[offset...])
        var attempt = 0
        while true {
            let path =
                directory + "/" + fileName(order: segment.order, offset: offset, attempt: attempt)
            switch fs.kind(of: path) {
            case .missing:
                try fs.writeAtomically(bytes, to: path, directory: directory)
                return path
            case .file where try holds(bytes, path: path, fileSystem: fs):
                return path
            default:
                attempt += 1
            }
        }
    }

    /// Whether the file at `path` holds exactly `bytes`.
    private static func holds(
        _ bytes: UnsafeRawBufferPointer, path: String, fileSystem fs: any FileSystem
    ) throws -> Bool {
        let file = try fs.open(path, create: false, readOnly: true)
        defer { try? fs.close(file) }
        guard try fs.size(file) == Int64(bytes.count) else { return false }
        var buffer = [UInt8](repeating: 0, count: min(bytes.count, 1 << 20))
        var done = 0
        while done < bytes.count {
            let piece = min(buffer.count, bytes.count - done)
            let read = try buffer.withUnsafeMutableBytes {
                try fs.read(
                    file, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<piece]),
                    at: Int64(done))
            }
            guard read == piece, buffer[..<piece].elementsEqual(bytes[done..<done + piece]) else {
                return false
            }
            done += piece
        }
        return true
    }
}
