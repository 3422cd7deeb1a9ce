import Foundation

/// Runs syncs that need no order among themselves at the same time, each on a thread of its
/// own, and waits for all of them.
///
/// Why: a sync costs a device cache flush, milliseconds on most disks, and mostly waits. A
/// backup's files and its directory must all be durable before the swap, in any order, so their
/// syncs run at once: the kernel flushes them together, or one after another without the
/// round trip back to this process between them, and the backup waits about one flush instead
/// of one for each (FORMAT.md, "Backups").
///
/// Thread safety: every sync runs on its own thread; `syncs` must be safe to run concurrently.
enum ConcurrentSyncs {
    /// Runs every one of `syncs` (the first on the calling thread), and returns when all have
    /// returned.
    /// - Throws: the error of the first failed sync in `syncs`' order, once all have returned.
    static func run(_ syncs: [@Sendable () throws -> Void]) throws {
        guard syncs.count > 1 else {
            try syncs.first?()
            return
        }
        let errors = Outcomes(count: syncs.count)
        let done = DispatchGroup()
        for (i, sync) in syncs.enumerated().dropFirst() {
            done.enter()
            let thread = Thread {
                errors.record(i) { try sync() }
                done.leave()
            }
            thread.start()
        }
        errors.record(0) { try syncs[0]() }
        done.wait()
        if let error = errors.first { throw error }
    }

    /// The error of each sync, if it threw.
    private final class Outcomes: Sendable {
        private let errors: Locked<[(any Error)?]>

        init(count: Int) { errors = Locked(Array(repeating: nil, count: count)) }

        func record(_ index: Int, _ body: () throws -> Void) {
            do {
                try body()
            } catch {
                errors.withLock { $0[index] = error }
            }
        }

        var first: (any Error)? { errors.withLock { $0.compactMap { $0 }.first } }
    }
}
