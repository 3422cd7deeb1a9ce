import Foundation
import LogStore
import TestSupport

/// One step of a scenario run under injected I/O faults. Unlike a ``Workload``, a scenario goes
/// on after a step fails, as an application would.
enum FaultStep: Sendable {
    case open
    case commit([Change], Durability)
    /// One streaming commit, a piece per element.
    case stream([[Change]], Durability)
    case sync
    case compact
    case reopen
    case close
}

/// A fault to inject at one call.
enum InjectedFault: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `EIO` once.
    case eio
    /// `EIO` at this call and every later one of the same operation.
    case persistentEIO
    /// `ENOSPC` once (writes and syncs).
    case enospc
    /// `ENOSPC` from here on (writes and syncs).
    case persistentENOSPC
    /// A write that writes 3 bytes (writes only).
    case shortWrite
    /// A write that writes nothing (writes only).
    case zeroWrite

    var description: String { rawValue }

    func applies(to operation: String) -> Bool {
        switch self {
        case .eio, .persistentEIO: return true
        case .enospc, .persistentENOSPC: return operation == "write" || operation == "fdatasync"
        case .shortWrite, .zeroWrite: return operation == "write"
        }
    }

    var fault: FaultInjectingFileSystem.Fault {
        switch self {
        case .eio, .persistentEIO: return .error(EIO)
        case .enospc, .persistentENOSPC: return .error(ENOSPC)
        case .shortWrite: return .shortWrite(3)
        case .zeroWrite: return .shortWrite(0)
        }
    }

    var times: Int {
        switch self {
        case .persistentEIO, .persistentENOSPC: return Int.max
        default: return 1
        }
    }
}

/// Runs a scenario against a store whose file system fails where told, keeping the model, and
/// collects every broken promise.
struct FaultRun {
    let path: String
    let segmentSize: Int
    let faults = FaultInjectingFileSystem()
    let log: CallLogFileSystem
    var problems: [String] = []
    /// Contents after each successful commit, by sequence.
    var states: [UInt64: Contents] = [0: [:]]
    /// Contents a commit that failed would have made (it may surface after reopening: the
    /// bytes may have reached the disk although the commit was not acknowledged).
    var failedStates: [UInt64: Contents] = [:]
    var current: Contents = [:]
    var acknowledged: UInt64 = 0
    /// Failed commits whose changes were found after reopening.
    var resurfaced = 0
    private var store: LogStore?
    /// Set once a failed `fdatasync` of a segment was reported: writes must be refused.
    private var syncFailed = false
    /// Whether a `.buffered` commit succeeded since the last point everything was made durable.
    private var bufferedSinceDurable = false

    init(path: String, segmentSize: Int) {
        self.path = path
        self.segmentSize = segmentSize
        log = CallLogFileSystem(faults)
    }

    private var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.fileSystem = log
        options.segmentSize = segmentSize
        options.autoCompactionDeadFraction = nil
        return options
    }

    mutating func run(_ steps: [FaultStep]) {
        for (i, step) in steps.enumerated() { perform(step, index: i) }
        if let store { try? store.close() }
        store = nil
    }

    private mutating func perform(_ step: FaultStep, index: Int) {
        switch step {
        case .open:
            open(index)
        case .reopen:
            if let store { try? store.close() }
            store = nil
            open(index)
        case .close:
            guard let store else { return }
            let last = store.lastSequence
            do {
                try store.close()
                if !syncFailed { acknowledged = max(acknowledged, last) }
            } catch {}
            self.store = nil
        case .sync:
            guard let store else { return }
            do {
                let before = log.calls.count
                try store.sync()
                if syncFailed && bufferedSinceDurable {
                    problems.append(
                        "step \(index): sync reported buffered commits durable after a failed fdatasync"
                    )
                }
                bufferedSinceDurable = false
                checkDurable(since: before, step: index, what: "sync")
                acknowledged = max(acknowledged, store.lastSequence)
            } catch {
                noteFailure(error)
            }
        case .compact:
            guard let store else { return }
            do {
                let before = log.calls.count
                try store.compact()
                if syncFailed {
                    problems.append("step \(index): compaction ran after a failed fdatasync")
                }
                checkDurable(since: before, step: index, what: "compaction")
                acknowledged = max(acknowledged, store.lastSequence)
                bufferedSinceDurable = false
            } catch {
                noteFailure(error)
            }
        case .commit(let changes, let durability):
            commit([changes], durability, streamed: false, step: index)
        case .stream(let chunks, let durability):
            commit(chunks, durability, streamed: true, step: index)
        }
    }

    /// One commit of `chunks` (as one batch, or as a streaming commit a piece per chunk).
    private mutating func commit(
        _ chunks: [[Change]], _ durability: Durability, streamed: Bool, step index: Int
    ) {
        guard let store else { return }
        let expected = store.lastSequence + 1
        var next = current
        for chunk in chunks { Change.apply(chunk, to: &next) }
        let before = log.calls.count
        do {
            let sequence =
                streamed
                ? try Change.stream(chunks, into: store, durability: durability)
                : try store.commit(Change.batch(chunks.flatMap { $0 }), durability: durability)
            if syncFailed {
                problems.append(
                    "step \(index): commit \(sequence) succeeded after a failed fdatasync")
            }
            if sequence != expected {
                problems.append(
                    "step \(index): commit got sequence \(sequence), expected \(expected)")
            }
            states[sequence] = next
            current = next
            if durability == .sync {
                checkDurable(since: before, step: index, what: "commit \(sequence)")
                acknowledged = max(acknowledged, sequence)
                bufferedSinceDurable = false
            } else {
                bufferedSinceDurable = true
            }
        } catch {
            failedStates[expected] = next
            noteFailure(error)
            // Invariant: a failed commit is not visible.
            if let found = try? contents(of: store), found != current {
                problems.append(
                    "step \(index): a failed commit changed what reads see: "
                        + describeDifference(found, current))
            }
        }
    }

    private mutating func noteFailure(_ error: Error) {
        if case LogStoreError.io("fdatasync", let failedPath, _) = error,
            failedPath.hasSuffix(".seg")
        {
            syncFailed = true
        }
    }

    /// A promise of durability must follow, for every segment written since `start`, a
    /// successful `fdatasync` after its last write.
    private mutating func checkDurable(since start: Int, step: Int, what: String) {
        let calls = log.calls[start...]
        var dirty: Set<String> = []
        for call in calls where call.succeeded {
            if call.operation == "write" && call.written > 0 { dirty.insert(call.path) }
            if call.operation == "fdatasync" { dirty.remove(call.path) }
            if call.operation == "unlink" { dirty.remove(call.path) }
        }
        // Compaction's abandoned temporary files are removed, not synced.
        dirty = dirty.filter { !$0.hasSuffix(".tmp") }
        if !dirty.isEmpty {
            problems.append(
                "step \(step): \(what) reported durable with unsynced writes to \(dirty.sorted())")
        }
    }

    private mutating func open(_ index: Int) {
        syncFailed = false
        bufferedSinceDurable = false
        do {
            let store = try openStore(path, options: options)
            self.store = store
            check(store, "reopening at step \(index)")
        } catch {
            store = nil
        }
    }

    /// Checks a freshly opened store against the model and moves the model to it.
    mutating func check(_ store: LogStore, _ when: String) {
        let last = store.lastSequence
        guard last >= acknowledged else {
            problems.append(
                "\(when): acknowledged commits lost (last \(last), acknowledged \(acknowledged))")
            return
        }
        guard let found = try? contents(of: store) else {
            problems.append("\(when): reading failed")
            return
        }
        if let expected = states[last], found == expected {
            current = expected
        } else if let expected = failedStates[last], found == expected {
            current = expected
            states[last] = expected
            resurfaced += 1
        } else {
            let expected = states[last] ?? failedStates[last] ?? [:]
            problems.append(
                "\(when): contents are not those after commit \(last): "
                    + describeDifference(found, expected))
            current = found
        }
        states = states.filter { $0.key <= last }
        failedStates = failedStates.filter { $0.key <= last }
    }

    /// Opens the store with the real file system (faults healed), checks it, closes and opens it
    /// once more: the second open must find nothing to repair.
    mutating func finalCheck() {
        var options = LogStoreOptions()
        options.autoCompactionDeadFraction = nil
        options.segmentSize = segmentSize
        do {
            let store = try openStore(path, options: options)
            check(store, "final reopen")
            try store.put([1], for: Array("final".utf8), in: "z")
            try store.close()
            let again = try openStore(path, options: options)
            if !again.recovery.isClean {
                problems.append("second reopen was not clean: \(again.recovery)")
            }
            try again.close()
        } catch {
            problems.append("final reopen failed: \(error)")
        }
    }
}
