import Foundation
import LogStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A buffered text stream over a file descriptor (standard output or standard error).
///
/// Not thread-safe: one command writes to it from one thread. Call ``flush()`` before the
/// process exits; a write to a closed pipe ends the process (`SIGPIPE`), as for any tool.
final class FileOutput: TextOutputStream {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    private var ownsDescriptor = false
    /// Whether a write failed (the rest of the output was dropped).
    private(set) var failed = false

    /// A stream writing to `descriptor`, flushed every `capacity` bytes.
    init(descriptor: Int32, capacity: Int = 64 << 10) {
        self.descriptor = descriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// A stream writing to a new file at `path` (replacing one that is there), created
    /// owner-only like the store's files; `nil` (with `errno` set) if it cannot be created.
    convenience init?(creating path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        self.init(descriptor: descriptor)
        ownsDescriptor = true
    }

    /// Flushes and, for a stream made by ``init(creating:)``, closes the file; `false` if a
    /// write or the close failed.
    @discardableResult
    func close() -> Bool {
        flush()
        guard ownsDescriptor else { return !failed }
        ownsDescriptor = false
        return systemClose(descriptor) == 0 && !failed
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Appends `string` to the buffer, flushing when it is full.
    func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= capacity { flush() }
    }

    /// Lets `body` append UTF-8 text to the buffer, then flushes if it is full. If `body`
    /// throws, what it appended is dropped.
    func render(_ body: (inout [UInt8]) throws -> Void) rethrows {
        let start = buffer.count
        do {
            try body(&buffer)
        } catch {
            buffer.removeSubrange(start...)
            throw error
        }
        if buffer.count >= capacity { flush() }
    }

    /// Writes out everything buffered. Errors other than `EINTR` drop the rest: there is nowhere
    /// left to report them.
    func flush() {
        var start = 0
        while start < buffer.count {
            let written = buffer[start...].withUnsafeBytes {
                systemWrite(descriptor, $0.baseAddress, $0.count)
            }
            if written < 0 {
                if errno == EINTR { continue }
                failed = true
                break
            }
            start += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// `write(2)`, named apart from ``FileOutput/write(_:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// `close(2)`, named apart from ``FileOutput/close()``.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Where a command writes: results to ``out``, messages and progress to ``err``.
final class Console {
    /// Results (the dump, the report).
    let out: FileOutput
    /// Warnings, errors and progress.
    let err: FileOutput
    /// The progress line on ``err``, live only when standard error is a terminal.
    let progress: ProgressLine

    /// The process's standard output and standard error.
    init() {
        out = FileOutput(descriptor: 1)
        err = FileOutput(descriptor: 2, capacity: 0)
        progress = ProgressLine(output: err, enabled: err.isTerminal)
    }

    /// Prints `logbook: message` on standard error.
    func error(_ message: String) {
        progress.clear()
        err.write("logbook: \(message)\n")
    }

    /// Flushes both streams.
    func flush() {
        progress.clear()
        out.flush()
        err.flush()
    }
}
