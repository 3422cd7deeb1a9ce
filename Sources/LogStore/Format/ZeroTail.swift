/// The zero tail of a segment (FORMAT.md, "Zero tail", segment version 3): zero bytes the writer
/// wrote ahead of its commits, from the end of the last commit (or mark) to the end of the file,
/// so that a durable commit overwrites allocated bytes instead of growing the file (whose new
/// size an `fdatasync` would have to commit to the file system's journal).
///
/// A reader takes a segment to end where its zero tail starts: at a commit boundary, when every
/// byte from there to the end of the file is zero. Zeros followed by anything else are damage,
/// as before (a torn tail, or corruption), so the rule never hides a byte that was written.
enum ZeroTail {
    /// The first segment version whose files may end in a zero tail.
    static let firstVersion: UInt16 = 3

    /// Whether every byte of `bytes` from `start` on is zero.
    /// - Complexity: O(bytes after `start`), 8 bytes a step.
    static func isZero(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Bool {
        var i = start
        let n = bytes.count
        while i < n && i & 7 != 0 {
            if bytes[i] != 0 { return false }
            i += 1
        }
        var any: UInt64 = 0
        while i + 64 <= n {
            // Eight words a step, one test: a zero tail is long, and all of it is read.
            for w in 0..<8 {
                any |= bytes.loadUnaligned(fromByteOffset: i + w * 8, as: UInt64.self)
            }
            if any != 0 { return false }
            i += 64
        }
        while i + 8 <= n {
            any |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n {
            any |= UInt64(bytes[i])
            i += 1
        }
        return any == 0
    }
}
