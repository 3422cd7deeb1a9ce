import Foundation
import LogStore
import Logbook

/// `logbook compact PATH`: rewrites the live records and reclaims dead bytes.
enum Compact: Subcommand {
    static let name = "compact"
    static let summary = "rewrite live records into new segments and reclaim dead bytes"
    static let positionals = ["PATH"]
    static let options: [OptionSpec] = []
    static let discussion = """
        Seals the active segment, copies the live records of every segment into new ones and \
        removes the old, then prints what it reclaimed. Crash-safe at every step (FORMAT.md, \
        "Compaction"). In a store of the object layer, object records of older schema versions \
        are written in the newest one, as an app's compaction writes them (byte for byte, with \
        a warning, if the schema record does not read). Takes the writer lock: a store open \
        elsewhere for writing is refused with one line and exit status 1.
        \(TornTail.writerHelp) Compaction then removes the cut file, as it removes every one.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let store = try StoreAccess.openForWriting(path)
        defer { try? store.close() }
        TornTail.warn(store.recovery, console)
        do {
            if let decoder = try RecordDecoder.stored(in: store) {
                store.setCompactionRewriter(decoder.recordUpgrader)
            }
        } catch {
            // Records are then copied as they are, damage included, where `verify` finds it.
            console.error("warning: object records keep their schema versions: \(error)")
        }
        let before = try store.stats()
        console.progress.show(
            "compact: rewriting \(Formatting.count(before.segments, "segment")), "
                + "\(Formatting.byteCount(before.fileBytes))…")
        let watcher = CompactionWatcher(
            directory: path, expectedBytes: before.liveBytes, progress: console.progress)
        let report: CompactionReport
        do {
            defer { watcher.stop() }
            report = try store.compact()
        }
        let after = try store.stats()
        console.progress.clear()
        var line = "compacted \(report.segmentsCompacted) segment"
        line += report.segmentsCompacted == 1 ? "" : "s"
        line += ": \(Formatting.byteCount(report.bytesReclaimed)) reclaimed, "
        line += "\(Formatting.byteCount(report.bytesWritten)) written in "
        line += Formatting.fixed(report.duration, digits: 2) + " s; now \(after.segments) segment"
        line += after.segments == 1 ? "" : "s"
        line += ", \(Formatting.byteCount(after.fileBytes)), space amplification "
        line += Formatting.fixed(after.spaceAmplification, digits: 2) + "x\n"
        console.out.write(line)
        return 0
    }
}

/// Draws compaction's progress while ``LogStore/compact()`` runs: the bytes of the `.tmp` output
/// files so far against the live bytes to rewrite, their rate and the time left, from a thread
/// of its own that looks at the store's directory ten times a second.
///
/// Thread safety: between init and ``stop()`` only its thread touches the progress line; the
/// caller must not draw on it meanwhile.
final class CompactionWatcher: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let progress: ProgressLine

    /// Starts watching `directory` if `progress` draws at all.
    init(directory: String, expectedBytes: Int64, progress: ProgressLine) {
        self.progress = progress
        guard progress.isEnabled else {
            finished.signal()
            return
        }
        let meter = ProgressMeter("compact", total: Int(expectedBytes >> 10), unit: "KiB rewritten")
        Thread.detachNewThread { [self] in
            // Outputs are renamed into place at the end: then the most seen stands.
            var most: Int64 = 0
            while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                let outputs = (try? StoreFiles(storeAt: directory))?.temporaryFiles ?? []
                let written = outputs.reduce(Int64(0)) { $0 + Self.size(of: directory + "/" + $1) }
                most = max(most, written)
                if self.progress.isDue() {
                    self.progress.show(meter.describe(done: Int(most >> 10)))
                }
            }
            finished.signal()
        }
    }

    /// The size of the file at `path`, 0 if it is gone (an output renamed into place).
    private static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?
            .int64Value ?? 0
    }

    /// Stops watching; returns once the thread has stopped drawing.
    func stop() {
        done.signal()
        finished.wait()
    }
}
