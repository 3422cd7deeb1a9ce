import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes written once and read back once, in order, in bounded memory: kept in memory up to
/// `limit`, then moved to a temporary file (in `$TMPDIR`, else `/tmp`) that is unlinked as soon
/// as it is made, so nothing is left behind whatever happens to the process.
///
/// What a table needs when its column widths depend on rows not yet read. Not thread-safe.
final class SpillBuffer {
    /// The bytes not yet moved to the file: `count` of them from `base`, which has room for
    /// `capacity`.
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0
    private let limit: Int
    private var file: Int32 = -1

    /// A buffer that holds at most about `limit` bytes in memory (more only for a single
    /// record longer than that).
    init(limit: Int = 4 << 20) {
        self.limit = max(limit, 1)
        capacity = min(self.limit, 64 << 10)
        base = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        base.deallocate()
        if file >= 0 { close(file) }
    }

    /// Room for a record of `size` bytes: write them at the pointer returned, then call
    /// ``appended(_:)`` with the same size. Moves the bytes to the file first when the record
    /// would take them past the limit.
    /// - Throws: ``EmployeesError/output(_:)`` if the temporary file cannot be made or written.
    @inline(__always)
    func reserve(_ size: Int) throws(EmployeesError) -> UnsafeMutableRawPointer {
        if count + size > capacity { try makeRoom(size) }
        return base + count
    }

    /// Counts the `size` bytes written at the pointer ``reserve(_:)`` returned.
    @inline(__always)
    func appended(_ size: Int) { count += size }

    private func makeRoom(_ size: Int) throws(EmployeesError) {
        if capacity < limit {
            grow(to: min(limit, max(capacity * 2, count + size)))
            if count + size <= capacity { return }
        }
        if count > 0 { try moveToFile() }
        if size > capacity { grow(to: size) }
    }

    private func grow(to newCapacity: Int) {
        guard newCapacity > capacity else { return }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    /// Reads everything back, in order: `body` gets the bytes not yet consumed (at least one
    /// whole record, whatever its size) and returns how many of them it consumed.
    /// - Throws: ``EmployeesError/output(_:)`` for a failed read; what `body` throws.
    func readBack(_ body: (UnsafeRawBufferPointer) throws(EmployeesError) -> Int)
        throws(EmployeesError)
    {
        guard file >= 0 else {
            let consumed = try body(UnsafeRawBufferPointer(start: base, count: count))
            base.copyMemory(from: base + consumed, byteCount: count - consumed)
            count -= consumed
            return
        }
        try moveToFile()
        guard lseek(file, 0, SEEK_SET) == 0 else { throw failure("read") }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        var atEnd = false
        while !atEnd || filled > 0 {
            if !atEnd && filled < chunk.count {
                let count = chunk.withUnsafeMutableBytes {
                    systemRead(file, $0.baseAddress! + filled, $0.count - filled)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("read")
                }
                atEnd = count == 0
                filled += count
            }
            let consumed = try chunk.withUnsafeBytes { raw in
                Result<Int, EmployeesError> { () throws(EmployeesError) in
                    try body(UnsafeRawBufferPointer(rebasing: raw[..<filled]))
                }
            }.get()
            if consumed == 0 {
                // A record longer than the chunk: read on into a bigger one.
                if atEnd { break }
                if filled == chunk.count { chunk += [UInt8](repeating: 0, count: chunk.count) }
                continue
            }
            chunk.withUnsafeMutableBytes { raw in
                let base = raw.baseAddress!
                memmove(base, base + consumed, filled - consumed)
            }
            filled -= consumed
        }
    }

    private func moveToFile() throws(EmployeesError) {
        if file < 0 { try makeFile() }
        var offset = 0
        while offset < count {
            let written = systemWrite(file, base + offset, count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure("write") }
            offset += written
        }
        count = 0
    }

    private func makeFile() throws(EmployeesError) {
        var template = Array((Self.directory + "/employees-list-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure("make") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        file = descriptor
    }

    private static var directory: String {
        let environment = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        return environment.isEmpty ? "/tmp" : String(environment.trimmingSuffix("/"))
    }

    private func failure(_ action: String) -> EmployeesError {
        .output(
            "cannot \(action) the temporary file that holds the rows in \(Self.directory) ("
                + String(cString: strerror(errno))
                + "); set TMPDIR to a directory with room")
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: Character) -> Substring {
        var text = self[...]
        while text.count > 1 && text.last == suffix { text = text.dropLast() }
        return text
    }
}
