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
    /// The bytes not yet moved to the file; append to it, then call ``appended()``.
    var bytes: [UInt8] = []
    private let limit: Int
    private var file: Int32 = -1

    /// A buffer that holds at most about `limit` bytes in memory.
    init(limit: Int = 4 << 20) {
        self.limit = limit
        bytes.reserveCapacity(min(limit, 64 << 10))
    }

    deinit { if file >= 0 { close(file) } }

    /// Moves the bytes to the file once they pass the limit.
    /// - Throws: ``EmployeesError/output(_:)`` if the temporary file cannot be made or written.
    func appended() throws(EmployeesError) {
        if bytes.count >= limit { try moveToFile() }
    }

    /// Reads everything back, in order: `body` gets the bytes not yet consumed (at least one
    /// whole record, whatever its size) and returns how many of them it consumed.
    /// - Throws: ``EmployeesError/output(_:)`` for a failed read; what `body` throws.
    func readBack(_ body: (UnsafeRawBufferPointer) throws(EmployeesError) -> Int)
        throws(EmployeesError)
    {
        guard file >= 0 else {
            let consumed = try bytes.withUnsafeBytes { raw in
                Result<Int, EmployeesError> { () throws(EmployeesError) in try body(raw) }
            }.get()
            bytes.removeFirst(consumed)
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
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                systemWrite(file, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure("write") }
            offset += written
        }
        bytes.removeAll(keepingCapacity: true)
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
