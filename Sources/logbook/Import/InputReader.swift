#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file (or standard input) in chunks, for parsers that take one line or row at a time:
/// memory holds a chunk and the longest item, not the file.
///
/// Not thread-safe. A read error other than `EINTR` ends the input with ``failure`` set.
final class InputReader {
    /// The most bytes one line or row may take.
    static let maximumItem = 64 << 20

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// `count` bytes read, of which those from `start` on are unread.
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity = 1 << 20
    private var count = 0
    private var start = 0
    private var atEnd = false
    /// Bytes consumed so far (for progress).
    private(set) var consumed: Int64 = 0
    /// The `errno` of a failed read, if one failed.
    private(set) var failure: Int32?

    /// A reader of the file at `path`, or of standard input for `-`; `nil` (with `errno` set)
    /// if the file cannot be opened.
    init?(path: String) {
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            ownsDescriptor = true
        }
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
        buffer.deallocate()
    }

    /// The size of the file, if it is a regular file (for progress).
    var fileSize: Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// The next item: `parse` gets the unread bytes and whether they are the last, and returns
    /// the item and the bytes it took, or `nil` if it needs more (then more are read and it is
    /// called again). Returns `nil` at the end of the input.
    /// - Throws: what `parse` throws; ``ItemTooLong`` when an item passes ``maximumItem``.
    func next<Item>(
        _ parse: (_ bytes: UnsafeBufferPointer<UInt8>, _ isLast: Bool) throws -> (Item, Int)?
    ) throws -> Item? {
        while true {
            if start == count && atEnd { return nil }
            let parsed = try parse(
                UnsafeBufferPointer(start: buffer + start, count: count - start), atEnd)
            if let (item, length) = parsed {
                start += length
                consumed += Int64(length)
                return item
            }
            guard !atEnd else { return nil }
            guard count - start < Self.maximumItem else { throw ItemTooLong() }
            fill()
        }
    }

    /// Reads the next chunk after the unread bytes, into at least half the buffer: it doubles
    /// when the unread bytes (a long item) take more than half.
    private func fill() {
        if start > 0 {
            memmove(buffer, buffer + start, count - start)
            count -= start
            start = 0
        }
        if capacity - count < capacity / 2 {
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            larger.initialize(from: buffer, count: count)
            buffer.deallocate()
            buffer = larger
            capacity *= 2
        }
        while true {
            let n = read(descriptor, buffer + count, capacity - count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { failure = errno }
            count += max(n, 0)
            if n <= 0 { atEnd = true }
            return
        }
    }

    /// An item longer than ``maximumItem``.
    struct ItemTooLong: Error {}
}
