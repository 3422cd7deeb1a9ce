import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A status line on standard error that rewrites itself in place (`\r`, erase to end of line),
/// for a long `list` whose rows go elsewhere: `list: 120000 of 1000000 employees read,
/// 412000/s, 12%, 2 s left`. First drawn after half a second (quick commands never show it),
/// then at most five times a second; erased at the end.
///
/// Made only when standard error is a terminal and standard output is not (see
/// ``forStandardError()``), so it never lands in a pipe, a file or the JSON, and never garbles
/// a table drawn on the same terminal. `EMPLOYEES_PROGRESS_AFTER_MS` sets the first delay (and
/// caps the interval), so tests can see it. Not thread-safe.
final class ProgressLine {
    private var next: UInt64
    private let interval: UInt64
    private var calls = 0
    private var showing = false
    private let start = ProgressLine.milliseconds()

    private init() {
        let delay =
            ProcessInfo.processInfo.environment["EMPLOYEES_PROGRESS_AFTER_MS"].flatMap {
                UInt64($0)
            } ?? 500
        next = start + delay
        interval = min(delay, 200)
    }

    /// A progress line if standard error is a terminal and standard output is not.
    static func forStandardError() -> ProgressLine? {
        isatty(STDERR_FILENO) == 1 && isatty(STDOUT_FILENO) == 0 ? ProgressLine() : nil
    }

    /// Shows the line `text` builds, if a draw is due; cheap enough to call for every row.
    @inline(__always)
    func update(_ text: @autoclosure () -> String) {
        calls &+= 1
        guard calls & 1023 == 0, Self.milliseconds() >= next else { return }
        show(text())
    }

    /// Shows `text` now if the line has been shown before or half a second has passed.
    func show(_ text: String) {
        let now = Self.milliseconds()
        guard showing || now >= next else { return }
        next = now + interval
        Self.write("\r\u{1B}[K" + text)
        showing = true
    }

    /// `done` of `total` with the rate and the time left.
    func describe(_ what: String, done: Int, total: Int) -> String {
        let seconds = Double(Self.milliseconds() - start) / 1000
        var text = "\(what): \(done) of \(total) employees"
        guard seconds > 0, done > 0, total > 0 else { return text }
        let rate = Double(done) / seconds
        text += ", \(Int(rate))/s, \(min(100, done * 100 / total))%"
        return text + ", \(Int((Double(max(0, total - done)) / rate).rounded(.up))) s left"
    }

    /// Erases the line, if drawn.
    func clear() {
        guard showing else { return }
        Self.write("\r\u{1B}[K")
        showing = false
    }

    private static func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = systemWrite(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static func milliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }
}
