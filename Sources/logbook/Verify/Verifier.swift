import Foundation
import LogStore
import Logbook

/// What `logbook verify` found: the library's check (``LogInspector/verify(storeAt:)``,
/// the rules `open` applies) and, with a stored schema, the object layer's.
struct VerifyOutcome {
    /// One problem, with the file and offset where they are known.
    typealias Finding = StoreCheckReport.Finding

    /// The library's report.
    var report = VerifyReport()
    /// Objects decoded with the stored schema (0 without one).
    var objectsChecked = 0
    /// Damage: the store is not what FORMAT.md allows.
    var errors: [Finding] = []
    /// Worth knowing, not damage (a torn tail, unless strict).
    var warnings: [Finding] = []

    /// Whether damage was found.
    var isDamaged: Bool { !errors.isEmpty }
}

/// `logbook verify`: a printer over the library's check, ``StoreCheck``, which checks the store
/// by `open`'s own rules without changing it, plus what only the object layer can check: that
/// every object record (live or not) decodes with the stored schema, that every to-one
/// relationship points at an object that exists, and that a current index sidecar checks. This
/// type sorts what it found into errors and warnings, and runs it again when a compaction
/// replaced segments meanwhile.
///
/// A torn tail (an incomplete last commit, what a crash during a write leaves) is a warning: the
/// next writer's open cuts it and no acknowledged commit is lost. So are a hint file that open
/// would ignore, files the store never reads (`*.tmp`, `*.seg.damaged`) and bytes an earlier
/// recovery cut and kept (`*.cut`), and an index sidecar that open would not use. With `strict`
/// all of these are errors.
struct Verifier {
    /// The store's directory.
    let path: String
    /// Count warnings as damage.
    var strict = false

    /// Runs every check. A writer's compaction during the check replaces segments; a check that
    /// saw the segments change runs again, up to three times in all; if the writer keeps
    /// compacting, the files that vanished are left out with a warning rather than reported as
    /// damage.
    /// - Throws: ``CommandError/cannotRun(_:)`` if the path is not a store or its format version
    ///   is newer than this tool reads.
    func run(progress: ProgressLine) throws -> VerifyOutcome {
        try StoreAccess.requireStoreDirectory(path)
        var attempt = 0
        while true {
            attempt += 1
            let before = try segmentNames()
            var outcome = try runOnce(progress: progress)
            let changed = try segmentNames() != before
            guard changed else { return outcome }
            guard attempt == 3 else { continue }
            // A file vanishes only when the writer removes it (a compaction) after the check
            // listed it; its records were copied first, so its absence is not damage.
            let vanished = outcome.errors.filter {
                $0.path != path && StoreAccess.fileKind($0.path) == .missing
            }
            outcome.errors.removeAll { finding in vanished.contains { $0.path == finding.path } }
            for finding in vanished {
                outcome.warnings.append(
                    .init(
                        path: finding.path, offset: nil,
                        message: "removed by the writer (a compaction) while it was read, so it "
                            + "was not checked; run verify again"))
            }
            return outcome
        }
    }

    private func segmentNames() throws -> [String] {
        try StoreFiles(storeAt: path).segments.map(\.name)
    }

    /// One check.
    private func runOnce(progress: ProgressLine) throws -> VerifyOutcome {
        var outcome = VerifyOutcome()
        let meter = VerifyProgress(storeAt: path)
        var seen = 0
        let check = try StoreCheck.run(
            storeAt: path, keyDirectoryPassBytes: StoreTuning.keyDirectoryPassBytes
        ) { record in
            seen += 1
            progress.update(meter.describe(record, records: seen))
        }
        outcome.report = check.log
        if let unsupported = outcome.report.problems.first(where: {
            $0.kind == .unsupportedVersion
        }) {
            throw CommandError.cannotRun(unsupported.reason)
        }
        outcome.objectsChecked = check.objectsChecked
        outcome.errors += check.damagedRecords
        for problem in outcome.report.problems { classify(problem, into: &outcome) }
        outcome.errors += check.danglingReferences
        if let sidecar = check.unusableIndexSidecar {
            let finding = VerifyOutcome.Finding(
                path: sidecar.path, offset: sidecar.offset,
                message: sidecar.message
                    + " (open ignores this index sidecar and builds the indexes from the records)")
            if strict { outcome.errors.append(finding) } else { outcome.warnings.append(finding) }
        }
        return outcome
    }

    /// Sorts a problem the library found into errors and warnings.
    private func classify(_ problem: LogInspector.Problem, into outcome: inout VerifyOutcome) {
        let suffix: String
        switch problem.kind {
        case .corruption, .unsupportedVersion:
            outcome.errors.append(
                .init(path: problem.path, offset: problem.offset, message: problem.reason))
            return
        case .tornTail:
            suffix =
                strict
                ? " (torn tail)"
                : " (torn tail: an incomplete last commit, cut by the next writer's open)"
        case .unusableHint:
            suffix = " (open ignores this hint and scans the segment)"
        case .unusableKeyDirectory:
            suffix = " (open ignores this key directory file and rebuilds the index)"
        case .leftoverFile, .cutBytes:
            suffix = ""
        }
        let finding = VerifyOutcome.Finding(
            path: problem.path, offset: problem.offset, message: problem.reason + suffix)
        if strict { outcome.errors.append(finding) } else { outcome.warnings.append(finding) }
    }
}

/// The progress line of `verify` on a terminal: `verify: 412,000 records, 1.9M records/s,
/// segment 2 of 3, 41%, 0.3 s left`. The rate and time left come from the bytes read so far.
struct VerifyProgress {
    private let started = Date()
    private let totalBytes: Int64
    /// Bytes of the segments before each one, by name.
    private let before: [String: (index: Int, bytes: Int64)]

    init(storeAt path: String) {
        let segments = (try? StoreFiles(storeAt: path, sizes: true).segments) ?? []
        var before: [String: (index: Int, bytes: Int64)] = [:]
        var total: Int64 = 0
        for (i, segment) in segments.enumerated() {
            before[segment.name] = (i + 1, total)
            total += segment.bytes
        }
        self.before = before
        totalBytes = max(total, 1)
    }

    /// `verify: segment 2 of 5, 41%, 120,000 records, 400000 records/s, 3.1 s left`.
    func describe(_ record: LogInspector.VisitedRecord, records: Int) -> String {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let counts =
            "\(Formatting.count(records, "record")), "
            + String(format: "%.0f records/s", Double(records) / elapsed)
        guard let segment = before[record.segment] else { return "verify: " + counts }
        let done = segment.bytes + record.recordOffset
        let fraction = min(1, Double(done) / Double(totalBytes))
        var line =
            "verify: segment \(segment.index) of \(before.count), \(Int(fraction * 100))%, "
            + counts
        if fraction > 0.01 {
            line += String(format: ", %.1f s left", elapsed / fraction - elapsed)
        }
        return line
    }
}
