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

/// A status line on standard error that rewrites itself in place (`\r`, erase to end of line):
/// first after a quarter of a second (quick commands never show it), then at most ten times a
/// second. When disabled (standard error is not a terminal) it writes nothing at all, so logs
/// and pipes stay clean.
final class ProgressLine {
    private let output: FileOutput
    /// Whether it draws; commands whose results stream to a terminal turn it off, since their
    /// output already shows progress and the two would garble each other.
    var isEnabled: Bool
    private var lastUpdate: UInt64
    private var showing = false

    /// Milliseconds between draws (and before the first, plus 150); the environment variable
    /// `LOGBOOK_PROGRESS_INTERVAL_MS` changes it, so tests can see every update.
    private let interval: UInt64

    /// A progress line on `output`, drawn only if `enabled`.
    init(output: FileOutput, enabled: Bool) {
        self.output = output
        self.isEnabled = enabled
        interval =
            ProcessInfo.processInfo.environment["LOGBOOK_PROGRESS_INTERVAL_MS"].flatMap {
                UInt64($0)
            } ?? 100
        lastUpdate = Self.milliseconds() + (interval == 0 ? 0 : 150)
    }

    private static func milliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }

    /// Shows `text` (computed only when it will be drawn).
    func update(_ text: @autoclosure () -> String) {
        guard isEnabled else { return }
        let millis = Self.milliseconds()
        guard millis >= lastUpdate + interval else { return }
        lastUpdate = millis
        output.write("\r\u{1B}[K" + text())
        output.flush()
        showing = true
    }

    /// Shows `text` now, whatever the time since the last draw: for one long step that has no
    /// updates of its own.
    func show(_ text: String) {
        guard isEnabled else { return }
        lastUpdate = Self.milliseconds()
        output.write("\r\u{1B}[K" + text)
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

/// How far a walk over a store's segments has got, for the progress line:
/// `verify: segment 2 of 5, 41%`. Immutable; sizes are read once at the start.
struct WalkProgress {
    private let label: String
    private let segments: [String: (index: Int, size: Int64)]

    /// Progress of `label` (the command's name) over the segments of the store at `path`.
    init(_ label: String, storeAt path: String) {
        self.label = label
        let files = (try? StoreFiles(storeAt: path, sizes: true))?.segments ?? []
        var segments: [String: (index: Int, size: Int64)] = [:]
        for (i, file) in files.enumerated() { segments[file.name] = (i + 1, max(file.bytes, 1)) }
        self.segments = segments
    }

    /// The line for a walk that has reached `record`.
    func describe(_ record: LogInspector.Record) -> String {
        guard let segment = segments[record.segment] else { return "\(label): \(record.segment)" }
        let percent = min(100, record.recordOffset * 100 / segment.size)
        return "\(label): segment \(segment.index) of \(segments.count), \(percent)%"
    }
}
