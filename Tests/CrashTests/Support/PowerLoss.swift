import Foundation
import LogStore
import TestSupport

/// A directory for crash tests' stores: in RAM when the machine has `/dev/shm` (the simulated
/// disk, not the real one, decides what survives, so real syncs are only cost), else in the
/// temporary directory. Removed by ``remove()``.
struct ScratchDirectory {
    let path: String

    init(_ label: String) {
        let shm = "/dev/shm"
        let base =
            FileManager.default.isWritableFile(atPath: shm)
            ? shm : FileManager.default.temporaryDirectory.path
        path = "\(base)/logbook-\(label)-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func child(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A workload's recorded system calls and its model.
struct Recording {
    var workload: Workload
    /// The directory the workload ran in; the store is `root/store`.
    var root: String
    var events: [TraceEvent]
    /// The disk before the recorded part.
    var start: SimulatedDisk
    var states: [UInt64: Contents]
    /// Acknowledged and attempted before the recorded part.
    var acknowledged: UInt64
    var attempted: UInt64

    /// Runs `workload` in `root` (which must exist) and records it.
    init(_ workload: Workload, seed: UInt64, root: String) throws {
        let driver = WorkloadDriver(
            path: root + "/store", segmentSize: workload.segmentSize, seed: seed)
        try workload.prepare?(driver)
        let recorder = RecordingFileSystem(root: root)
        start = SimulatedDisk(recorder)
        acknowledged = driver.acknowledged
        attempted = driver.attempted
        driver.fileSystem = recorder
        driver.recorder = recorder
        try workload.run(driver)
        self.workload = workload
        self.root = root
        events = recorder.events
        states = driver.states
    }

    /// The trace and the disk it started from.
    var trace: Trace {
        Trace(events: events, start: start, acknowledged: acknowledged, attempted: attempted)
    }

    typealias Point = Trace.Point

    /// Calls `body` after 0, 1, …, all system calls of the workload.
    func forEachCrashPoint(_ body: (Point) throws -> Void) rethrows {
        try trace.forEachCrashPoint(body)
    }

    /// Number of system calls recorded.
    var operationCount: Int { trace.operationCount }
}

/// A recorded trace, the disk it started from and what had been promised before it: the crash
/// points of any workload, of the engine or of the object layer.
struct Trace {
    var events: [TraceEvent]
    var start: SimulatedDisk
    /// Acknowledged and attempted before the recorded part.
    var acknowledged: UInt64
    var attempted: UInt64

    /// A crash point: the disk after the first `operations` system calls (and the notes that
    /// followed the last of them), and what the workload had been promised by then.
    struct Point {
        var operations: Int
        var disk: SimulatedDisk
        var acknowledged: UInt64
        var attempted: UInt64
        /// The last system call done, if any.
        var last: TraceEvent?
        /// The event index where the next system call is (or the end).
        var eventIndex: Int
    }

    /// Calls `body` after 0, 1, …, all system calls of the trace.
    func forEachCrashPoint(_ body: (Point) throws -> Void) rethrows {
        var point = Point(
            operations: 0, disk: start, acknowledged: acknowledged, attempted: attempted,
            last: nil, eventIndex: 0)
        var i = 0
        while true {
            // Apply notes up to the next system call.
            while i < events.count && !events[i].isOperation {
                note(events[i], &point)
                point.disk.apply(events[i])
                i += 1
            }
            point.eventIndex = i
            try body(point)
            guard i < events.count else { return }
            point.disk.apply(events[i])
            point.last = events[i]
            point.operations += 1
            i += 1
        }
    }

    private func note(_ event: TraceEvent, _ point: inout Point) {
        switch event {
        case .attempt(let sequence): point.attempted = max(point.attempted, sequence)
        case .acknowledged(let sequence): point.acknowledged = max(point.acknowledged, sequence)
        default: break
        }
    }

    /// Number of system calls recorded.
    var operationCount: Int { events.filter(\.isOperation).count }
}

/// Opens the store at `path` with the real file system and checks it against the model: it
/// opens; its last sequence lies between what was acknowledged and what was attempted; its
/// contents are exactly the model's after that commit (so nothing acknowledged is lost and no
/// commit is partly visible). With `writeAfter`, also commits once more, reopens and checks
/// again (the recovered store must go on cleanly). Returns what was wrong, or `nil`.
func checkRecoveredStore(
    at path: String, states: [UInt64: Contents], acknowledged: UInt64, attempted: UInt64,
    writeAfter: Bool
) -> String? {
    var options = LogStoreOptions()
    options.autoCompactionDeadFraction = nil
    do {
        let (opened, disagreement) = verifyThenOpen(path) {
            let store = try openStore(path, options: options)
            return (store, store.recovery)
        }
        if let disagreement { return disagreement }
        var store = try opened.get()
        if let problem = compare(store, states, acknowledged, attempted) { return problem }
        guard writeAfter else {
            try store.close()
            return verifiedRecovered(path)
        }
        let last = store.lastSequence
        var expected = states[last]!
        expected["after/crash"] = [1, 2, 3]
        let sequence = try store.put([1, 2, 3], for: Array("crash".utf8), in: "after")
        guard sequence == last + 1 else {
            return "the first commit after recovery got sequence \(sequence), not \(last + 1)"
        }
        try store.close()
        store = try openStore(path, options: options)
        defer { try? store.close() }
        let found = try contents(of: store)
        guard found == expected, store.lastSequence == sequence, store.recovery.isClean else {
            return "after recovery and one more commit, reopening gave sequence "
                + "\(store.lastSequence) and \(describeDifference(found, expected)); "
                + "recovery: \(store.recovery)"
        }
        try store.close()
        return verifiedRecovered(path)
    } catch {
        return "open failed: \(error)"
    }
}

private func compare(
    _ store: LogStore, _ states: [UInt64: Contents], _ acknowledged: UInt64, _ attempted: UInt64
) -> String? {
    let last = store.lastSequence
    guard last >= acknowledged else {
        return "acknowledged commits lost: last sequence \(last), acknowledged \(acknowledged)"
    }
    guard last <= attempted, let expected = states[last] else {
        return "last sequence \(last) was never attempted (attempted up to \(attempted))"
    }
    guard let found = try? contents(of: store) else { return "reading the contents failed" }
    guard found == expected else {
        return "contents are not those after commit \(last): \(describeDifference(found, expected))"
    }
    return nil
}

/// A short account of how `found` differs from `expected`.
func describeDifference(_ found: Contents, _ expected: Contents) -> String {
    var parts: [String] = []
    let missing = Set(expected.keys).subtracting(found.keys).sorted()
    let extra = Set(found.keys).subtracting(expected.keys).sorted()
    let changed = expected.keys.filter { found[$0] != nil && found[$0] != expected[$0] }.sorted()
    if !missing.isEmpty { parts.append("missing \(missing.prefix(5))") }
    if !extra.isEmpty { parts.append("unexpected \(extra.prefix(5))") }
    if !changed.isEmpty { parts.append("wrong values for \(changed.prefix(5))") }
    return parts.isEmpty ? "same contents" : parts.joined(separator: ", ")
}

/// A short description of a recorded event, with paths relative to `root`.
func describe(_ event: TraceEvent?, root: String) -> String {
    guard let event else { return "nothing" }
    let text: String
    switch event {
    case .write(let file, let offset, let bytes):
        text = "write \(bytes.count) bytes at \(offset) to file #\(file)"
    default:
        text = "\(event)"
    }
    return text.replacingOccurrences(of: root, with: "")
}

/// Runs ``LogInspector/verify(storeAt:visit:)`` on the crash state at `path` (it changes nothing),
/// then `open`, which opens it for writing and returns its recovery report, and checks that the
/// one checker and `open` agree (issue 16): open fails with corruption exactly where verify's
/// first damage is, and otherwise verify found no damage, the torn tail it names is the one open
/// cut (same segment, same offset), and the hints it calls unusable are the ones open ignored.
/// Returns what `open` gave, and why they disagree, if they do.
func verifyThenOpen<T>(
    _ path: String, _ open: () throws -> (T, RecoveryReport)
) -> (Result<T, Error>, String?) {
    let verified: VerifyReport
    do {
        // A crash before the store's directory was durable leaves nothing to check (open makes
        // a new store).
        guard FileManager.default.fileExists(atPath: path) else {
            return (Result { try open().0 }, nil)
        }
        verified = try LogInspector.verify(storeAt: path)
    } catch {
        return (.failure(error), "verify failed: \(error)")
    }
    let damage = verified.problems.first { $0.isDamage }
    do {
        let (opened, recovery) = try open()
        if let damage {
            return (.success(opened), "verify found damage (\(damage)) but open succeeded")
        }
        let cut = recovery.cuts.first.map { "\($0.path) at \($0.offset)" }
        let torn = verified.tornTail.map { "\($0.path) at \($0.offset ?? -1)" }
        if cut != torn {
            return (
                .success(opened),
                "verify saw the torn tail \(torn ?? "none"), open cut \(cut ?? "none")"
            )
        }
        let unusable = Set(verified.problems.filter { $0.kind == .unusableHint }.map(\.path))
        if unusable != Set(recovery.ignoredHints) {
            return (
                .success(opened),
                "verify found unusable hints \(unusable.sorted()), open ignored \(recovery.ignoredHints)"
            )
        }
        let directory = verified.problems.first { $0.kind == .unusableKeyDirectory }?.reason
        if directory != recovery.ignoredKeyDirectory {
            return (
                .success(opened),
                "verify found the key directory file \(directory.map { "unusable (\($0))" } ?? "usable"), "
                    + "open \(recovery.ignoredKeyDirectory.map { "ignored it (\($0))" } ?? "did not ignore it")"
            )
        }
        return (.success(opened), nil)
    } catch let LogStoreError.corruption(file, offset, reason) {
        let error = LogStoreError.corruption(path: file, offset: offset, reason: reason)
        guard let damage, damage.path == file, damage.offset == offset else {
            return (
                .failure(error),
                "open found corruption in \(file) at \(offset) (\(reason)); verify's first damage: "
                    + (damage.map { "\($0)" } ?? "none")
            )
        }
        return (.failure(error), nil)
    } catch {
        return (.failure(error), nil)
    }
}

/// Why verify finds the store at `path`, closed after recovery, anything but clean (kept cut
/// bytes allowed), or `nil`.
func verifiedRecovered(_ path: String) -> String? {
    do {
        let report = try LogInspector.verify(storeAt: path)
        let problems = report.problems.filter { $0.kind != .cutBytes }
        return problems.isEmpty ? nil : "verify after recovery: \(problems)"
    } catch {
        return "verify after recovery failed: \(error)"
    }
}
