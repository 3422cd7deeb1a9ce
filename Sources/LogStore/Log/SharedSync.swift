import Foundation

/// Durability for commits written `.buffered` whose callers then wait for them
/// (``LogStore/waitUntilDurable(_:)``): one `fdatasync` of the active segment at a time, run
/// outside the commit queue, so commits go on being written while it runs; every caller waiting
/// for a sequence number it covers is released by that one call.
///
/// It also holds the writer's `disabledCause`, so that a sync here and the writer's own syncs
/// poison the store alike: after either fails, writes are refused and no waiter is told its
/// commit is durable.
///
/// Thread safety: `@unchecked Sendable`; all state is under `condition`.
final class SharedSync: @unchecked Sendable {
    private let condition = NSCondition()
    /// Every commit up to this sequence number is on stable storage.
    private var durable: UInt64 = 0
    /// Whether a caller is inside `fdatasync`.
    private var syncing = false
    /// The segment commits are appended to. Set by the writer only once the segment before it
    /// was synced, so syncing this one covers every commit published before it was read.
    private var active: Segment
    private var cause: Int32?

    init(active: Segment) { self.active = active }

    /// Why writes are refused (a failed sync), if they are.
    var disabledCause: Int32? {
        get {
            condition.lock()
            defer { condition.unlock() }
            return cause
        }
        set {
            condition.lock()
            defer { condition.unlock() }
            cause = newValue
            condition.broadcast()
        }
    }

    /// Records the segment the writer appends to from now on.
    func setActive(_ segment: Segment) {
        condition.lock()
        defer { condition.unlock() }
        active = segment
    }

    /// Returns once commit `sequence` and all before it are on stable storage, syncing the active
    /// segment if no other caller is doing so already. `published` gives the last sequence
    /// number readers can see (every commit up to it has been handed to the OS).
    /// - Throws: ``LogStoreError/writesDisabled(path:cause:)`` after a failed sync, here or in
    ///   the writer; ``LogStoreError/io(operation:path:errno:)`` if this call's sync fails.
    func wait(
        for sequence: UInt64, published: () -> UInt64, fileSystem: any FileSystem,
        directory: String
    ) throws {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if durable >= sequence { return }
            if let cause { throw LogStoreError.writesDisabled(path: directory, cause: cause) }
            if syncing {
                condition.wait()
                continue
            }
            // The sequence first, then the segment: a commit it covers lies in this segment or
            // in an earlier one, which was synced before this one became active.
            let target = published()
            let segment = active
            syncing = true
            condition.unlock()
            var failure: Error?
            do { try fileSystem.syncData(segment.file) } catch { failure = error }
            condition.lock()
            syncing = false
            condition.broadcast()
            if let failure {
                if case .io(_, _, let code)? = failure as? LogStoreError, cause == nil {
                    cause = code
                }
                throw failure
            }
            if cause == nil { durable = max(durable, target) }
        }
    }
}
