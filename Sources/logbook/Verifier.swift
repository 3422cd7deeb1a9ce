import Foundation
import LogStore
import Logbook

/// What `logbook verify` found.
struct VerifyReport {
    /// One problem, with the file and offset where they are known.
    struct Finding {
        /// The file (or the store's directory, for the index).
        var path: String
        /// Where in the file, when known.
        var offset: Int64?
        /// What is wrong.
        var message: String

        /// `path at offset N: message`.
        var description: String {
            path + (offset.map { " at offset \($0)" } ?? "") + ": " + message
        }
    }

    /// Counts from the walk over the log.
    var summary: LogInspector.Summary?
    /// Live keys after replay.
    var keys = 0
    /// Keyspaces holding at least one live key after replay.
    var keyspaces = 0
    /// Objects decoded with the stored schema (0 without one).
    var objectsChecked = 0
    /// Damage: the store is not what FORMAT.md allows.
    var errors: [Finding] = []
    /// Worth knowing, not damage (a torn tail, unless strict).
    var warnings: [Finding] = []

    /// Whether damage was found.
    var isDamaged: Bool { !errors.isEmpty }
}

/// Checks a store without changing it: every file header, frame boundary and CRC, every
/// record's grammar (through ``LogInspector``), that a read-only open succeeds and its index
/// holds exactly the keys and values a replay of the log gives, and that every object record
/// decodes with the stored schema.
///
/// A torn tail (an incomplete last commit, what a crash during a write leaves) is a warning:
/// the next writer's open cuts it and no acknowledged commit is lost. So are a hint file that
/// does not match its segment (open ignores it and scans the segment) and a `.tmp` file left by
/// an interrupted compaction. With `strict` all of these are errors. Needs no lock: on a store being written it checks the index against the commits the
/// read-only open saw (a compaction running meanwhile can still make it miss a segment).
struct Verifier {
    /// The store's directory.
    let path: String
    /// Count a torn tail and a mismatched hint file as damage.
    var strict = false

    /// Runs every check.
    ///
    /// A writer's compaction during the check replaces segments, so the log walked is no longer
    /// the one the read-only open indexed (and compaction output carries newer sequence
    /// numbers). A check that saw the set of segments change, or a file it listed vanish, runs
    /// again, up to three times in all; if the writer keeps compacting, the index comparison and
    /// the files that vanished are left out with a warning rather than reported as damage.
    /// - Throws: ``CommandError/cannotRun(_:)`` if the path is not a store or its format version
    ///   is newer than this tool reads.
    func run(progress: ProgressLine) throws -> VerifyReport {
        // A file vanishes only when the writer removes it (a compaction) after the walk listed
        // it; its records were copied first, so its absence is not damage.
        let vanished = { (finding: VerifyReport.Finding) in
            finding.path != path && StoreAccess.fileKind(finding.path) == .missing
        }
        var attempt = 0
        while true {
            attempt += 1
            let (found, segmentsChanged) = try runOnce(progress: progress)
            if !segmentsChanged && !found.errors.contains(where: vanished) { return found }
            guard attempt == 3 else { continue }
            var report = found
            report.errors = []
            for finding in found.errors {
                guard vanished(finding) else {
                    report.errors.append(finding)
                    continue
                }
                report.warnings.append(
                    .init(
                        path: finding.path, offset: nil,
                        message: "removed by the writer (a compaction) while it was read, so it "
                            + "was not checked; run verify again"))
            }
            return report
        }
    }

    /// The segment files now, by name.
    private func segmentNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(".seg") }.sorted()
    }

    /// One check; also says whether the set of segments changed while it ran (then the index was
    /// not compared).
    private func runOnce(progress: ProgressLine) throws -> (VerifyReport, Bool) {
        var report = VerifyReport()
        let segmentsBefore = segmentNames()
        let opened = try StoreAccess.openForReading(path)
        var store: LogStore?
        var openFailure: VerifyReport.Finding?
        switch opened {
        case .success(let s): store = s
        case .failure(let error): openFailure = Self.finding(for: error, path: path)
        }
        defer { try? store?.close() }
        var schema: RecordDecoder?
        var schemaError: String?
        if let store {
            do {
                schema = try RecordDecoder.stored(in: store)
            } catch {
                schemaError = "the stored schema does not decode: \(error)"
            }
        }
        var lastSchemaRecord: VerifyReport.Finding?

        // The walk starts after the open, so a writer may have committed more meanwhile: the
        // model replays only what the open saw, and commits are replayed in sequence order.
        let visible = store?.lastSequence ?? .max
        var model: [String: [[UInt8]: Int]] = [:]
        let walk = WalkProgress("verify", storeAt: path)
        let summary = try LogInspector.walk(storeAt: path) { record in
            progress.update(walk.describe(record))
            let seen = record.sequence <= visible
            switch record.kind {
            case .defineKeyspace: return
            case .delete: if seen { model[record.keyspace, default: [:]][record.key] = nil }
            case .put:
                if record.keyspace == RecordDecoder.schemaKeyspace, let schemaError {
                    lastSchemaRecord = .init(
                        path: path + "/" + record.segment, offset: record.recordOffset,
                        message: schemaError)
                }
                let value = record.value ?? []
                if seen { model[record.keyspace, default: [:]][record.key] = value.hashValue }
                guard let schema, record.keyspace != RecordDecoder.schemaKeyspace else { return }
                do {
                    if schema.isEntityKeyspace(record.keyspace) {
                        _ = try schema.decode(
                            keyspace: record.keyspace, key: record.key, value: value)
                        report.objectsChecked += 1
                    }
                } catch {
                    report.errors.append(
                        .init(
                            path: path + "/" + record.segment, offset: record.recordOffset,
                            message: "object record does not decode: \(error)"))
                }
            }
        }
        report.summary = summary
        if let schemaError {
            report.errors.append(
                lastSchemaRecord ?? .init(path: path, offset: nil, message: schemaError))
        }
        for problem in summary.problems {
            let finding = VerifyReport.Finding(
                path: problem.path, offset: problem.offset, message: problem.reason)
            if problem.isTornTail && !strict {
                report.warnings.append(
                    VerifyReport.Finding(
                        path: problem.path, offset: problem.offset,
                        message: problem.reason
                            + " (torn tail: an incomplete last commit, cut by the next writer's open)"
                    ))
            } else {
                report.errors.append(
                    problem.isTornTail
                        ? VerifyReport.Finding(
                            path: problem.path, offset: problem.offset,
                            message: problem.reason + " (torn tail)") : finding)
            }
        }
        // A failed open names the first damage the walk also found; report it only if the
        // walk found none.
        if let openFailure, !summary.problems.contains(where: { !$0.isTornTail }) {
            report.errors.insert(openFailure, at: 0)
        }
        let damagedSegments = Set(summary.problems.map(\.path))
        for problem in try LogInspector.hintProblems(storeAt: path)
        where !damagedSegments.contains(String(problem.path.dropLast(5)) + ".seg") {
            // `open` ignores a hint that does not match its segment and scans the segment: slower,
            // never wrong. So it is a warning, unless strict.
            let finding = VerifyReport.Finding(
                path: problem.path, offset: problem.offset,
                message: problem.reason + " (open ignores this hint and scans the segment)")
            if strict { report.errors.append(finding) } else { report.warnings.append(finding) }
        }
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(".tmp") }.sorted()
        for name in leftovers {
            let finding = VerifyReport.Finding(
                path: path + "/" + name, offset: nil,
                message: "a file left by an interrupted compaction or hint write; never "
                    + "read, removed by the next open for writing")
            if strict { report.errors.append(finding) } else { report.warnings.append(finding) }
        }
        report.keyspaces = model.values.filter { !$0.isEmpty }.count
        report.keys = model.values.reduce(0) { $0 + $1.count }
        let segmentsChanged = segmentNames() != segmentsBefore
        if segmentsChanged {
            report.warnings.append(
                .init(
                    path: path, offset: nil,
                    message: "the writer compacted the store during the check, so its index "
                        + "was not compared with the log; run verify again"))
        } else if let store, !summary.problems.contains(where: { !$0.isTornTail }) {
            report.errors += checkIndex(store, against: model, progress: progress)
            if schema != nil {
                do {
                    report.errors += try ReferenceCheck.danglingReferences(in: store, path: path)
                } catch {
                    report.errors.append(
                        .init(
                            path: path, offset: nil,
                            message: "relationships could not be checked: \(error)"))
                }
            }
        }
        return (report, segmentsChanged)
    }

    /// Compares the store's index with the replayed model, keyspace by keyspace.
    private func checkIndex(
        _ store: LogStore, against model: [String: [[UInt8]: Int]], progress: ProgressLine
    ) -> [VerifyReport.Finding] {
        var findings: [VerifyReport.Finding] = []
        let names = Set(model.keys).union((try? store.keyspaces()) ?? [])
        for name in names.sorted() {
            progress.update("verify: index of keyspace \(name)")
            let expected = model[name] ?? [:]
            var seen = 0
            var mismatches = 0
            do {
                try store.forEach(in: name) { key, value in
                    seen += 1
                    let k = [UInt8](key)
                    if expected[k] != [UInt8](value).hashValue { mismatches += 1 }
                }
            } catch {
                findings.append(.init(path: path, offset: nil, message: "index: \(error)"))
                continue
            }
            if mismatches > 0 || seen != expected.count {
                findings.append(
                    .init(
                        path: path, offset: nil,
                        message: "index of keyspace \"\(name)\" disagrees with the log: "
                            + "\(seen) keys indexed, \(expected.count) after replay, "
                            + "\(mismatches) with another value"))
            }
        }
        return findings
    }

    private static func finding(for error: LogStoreError, path: String) -> VerifyReport.Finding {
        if case .corruption(let file, let offset, let reason) = error {
            return .init(path: file, offset: offset, message: reason)
        }
        return .init(path: path, offset: nil, message: "the store does not open: \(error)")
    }
}
