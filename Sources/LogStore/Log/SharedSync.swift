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
    /// How far `active` is known durable through a sync made here.
    private var syncedSize: Int
    /// Syncs of `active` made here that succeeded.
    private var syncs = 0
    private var cause: Int32?

    init(active: Segment) {
        self.active = active
        syncedSize = 0
    }

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
        syncedSize = 0
        syncs = 0
    }

    /// How far `segment` is known durable through syncs made here (0 if it is not the active
    /// one): the writer takes it into its own durable size, so its sync marks vouch for it.
    func durableSize(of segment: Segment) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return active === segment ? syncedSize : 0
    }

    /// How many syncs of `segment` made here succeeded (0 if it is not the active one): the
    /// writer counts them as durable commits when it decides to reserve a zero tail.
    func syncCount(of segment: Segment) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return active === segment ? syncs : 0
    }

    /// Returns once commit `sequence` and all before it are on stable storage, syncing the active
    /// segment if no other caller is doing so already. `published` gives the last sequence
    /// number readers can see (every commit up to it has been handed to the OS) and, read in the
    /// same step, the size of `segment` as published (its bytes up to there are written).
    /// - Throws: ``LogStoreError/writesDisabled(path:cause:)`` after a failed sync, here or in
    ///   the writer; ``LogStoreError/io(operation:path:errno:)`` if this call's sync fails.
    func wait(
        for sequence: UInt64, published: (_ segment: Segment) -> (UInt64, Int),
        fileSystem: any FileSystem,
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
            let (target, _) = published(active)
            let segment = active
            syncing = true
            condition.unlock()
            // Every byte up to this size was written before it was published.
            let (_, size) = published(segment)
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
            if cause == nil {
                durable = max(durable, target)
                if active === segment {
                    syncedSize = max(syncedSize, size)
                    syncs += 1
                }
            }
        }
    }
}
