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

    /// A stream writing to `descriptor`, flushed every `capacity` bytes.
    init(descriptor: Int32, capacity: Int = 64 << 10) {
        self.descriptor = descriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(descriptor) == 1 }

    func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
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

/// A status line on standard error that rewrites itself in place (`\r`, erase to end of line),
/// at most ten times a second. When disabled (standard error is not a terminal) it writes
/// nothing at all, so logs and pipes stay clean.
final class ProgressLine {
    private let output: FileOutput
    private let enabled: Bool
    private var lastUpdate: UInt64 = 0
    private var showing = false

    /// A progress line on `output`, drawn only if `enabled`.
    init(output: FileOutput, enabled: Bool) {
        self.output = output
        self.enabled = enabled
    }

    /// Shows `text` (computed only when it will be drawn).
    func update(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let millis = UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
        guard millis >= lastUpdate + 100 else { return }
        lastUpdate = millis
        output.write("\r\u{1B}[K" + text())
        output.flush()
        showing = true
    }

    /// Erases the line, if drawn.
    func clear() {
        guard showing else { return }
        output.write("\r\u{1B}[K")
        output.flush()
        showing = false
    }
}
