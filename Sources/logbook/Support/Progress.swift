import Foundation
import LogStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// Milliseconds on the monotonic clock.
    static func milliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }

    /// Whether a draw is due: the line is enabled and the interval since the last has passed.
    /// Loops over many records ask this before they build the line for ``show(_:)``.
    func isDue() -> Bool {
        isEnabled && Self.milliseconds() >= lastUpdate + interval
    }

    /// Shows `text` (computed only when it will be drawn) if a draw is due.
    func update(_ text: @autoclosure () -> String) {
        if isDue() { show(text()) }
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
        for (i, file) in files.enumerated() {
            segments[file.name] = (i + 1, max(file.bytes, 1))
        }
        self.segments = segments
    }

    /// The line for a walk that has reached `record`.
    func describe(_ record: LogInspector.Record) -> String {
        guard let segment = segments[record.segment] else { return "\(label): \(record.segment)" }
        let percent = min(100, record.recordOffset * 100 / segment.size)
        return "\(label): segment \(segment.index) of \(segments.count), \(percent)%"
    }

    /// The line for a walk that has reached `record`, having shown `done` records since
    /// `meter` started: records done, rate, segment, percentage and time left.
    func describe(_ record: LogInspector.Record, done: Int, meter: ProgressMeter) -> String {
        guard let segment = segments[record.segment] else { return meter.describe(done: done) }
        // Segments before this one count whole: the fraction of all bytes read so far.
        var total: Int64 = 0
        var before: Int64 = 0
        for (_, other) in segments {
            total += other.size
            if other.index < segment.index { before += other.size }
        }
        let fraction = Double(before + min(record.recordOffset, segment.size)) / Double(total)
        return meter.describe(done: done, fraction: fraction)
            + " (segment \(segment.index) of \(segments.count))"
    }
}

/// Records done, their rate and the time left, for the progress line:
/// `export: Employee: 120000 of 1000000 objects, 412000/s, 29%, 2 s left`.
struct ProgressMeter {
    private let label: String
    private let total: Int?
    private let unit: String
    private let start = ProgressLine.milliseconds()

    /// A meter of `label` (the command and what it works on) counting `unit`, out of `total`
    /// when known.
    init(_ label: String, total: Int? = nil, unit: String = "objects") {
        self.label = label
        self.total = total
        self.unit = unit
    }

    /// The line after `done` units; `fraction` is how much of the work they are, when it is
    /// known otherwise than from `total`.
    func describe(done: Int, fraction: Double? = nil) -> String {
        let seconds = Double(ProgressLine.milliseconds() - start) / 1000
        var text = "\(label): \(done)"
        if let total { text += " of \(total)" }
        text += " \(unit)"
        if seconds > 0 { text += ", \(Int(Double(done) / seconds))/s" }
        guard let part = fraction ?? total.map({ Double(done) / Double(max($0, 1)) }), part > 0
        else { return text }
        text += ", \(min(100, Int(part * 100)))%"
        let left = seconds * (1 - min(part, 1)) / part
        return text + ", \(Formatting.fixed(left, digits: 0)) s left"
    }
}
