import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One commit waiting to be written.
final class PendingCommit: @unchecked Sendable {
    let batch: WriteBatch
    let durability: Durability
    /// A place held by a ``StreamingCommit``: no leader writes it or groups past it.
    let isHold: Bool
    /// Set by the leader that wrote it, outside the queue's lock; read by others only once
    /// `finished` is set.
    var result: Result<UInt64, LogStoreError>?
    /// Set by the leader under the queue's lock after `result`: publishes it to the submitter.
    var finished = false

    init(batch: WriteBatch, durability: Durability, isHold: Bool = false) {
        self.batch = batch
        self.durability = durability
        self.isHold = isHold
    }
}

/// Group commit: commits queue up; the one at the front becomes the leader, takes the commits
/// queued behind it, writes them with one append and at most one `fdatasync`, then wakes them.
/// Only one leader runs at a time, so the leader owns the writer state without a lock of its own.
///
/// A streaming commit takes a place in the queue with ``hold()`` and keeps the leader's role
/// until ``release(_:)``: commits submitted meanwhile wait behind it, in order.
final class CommitQueue: @unchecked Sendable {
    /// A group stops growing past this many bytes of batches (a lone larger batch still goes).
    static let groupLimit = 4 << 20

    private let condition = NSCondition()
    private var waiting: [PendingCommit] = []
    private var head = 0  // waiting[head...] are queued; the prefix is being dropped lazily
    private var closed = false
    /// The thread holding the queue for a streaming commit, if one is.
    private var holder: pthread_t?

    /// Why the calling thread may not wait for the queue: it holds it itself (it would wait
    /// forever). Called under the lock.
    private func refusalForHolder() -> LogStoreError? {
        guard let holder, pthread_equal(holder, pthread_self()) != 0 else { return nil }
        return .invalidArgument(
            "this thread has a streaming commit open; finish or cancel it before committing, "
                + "syncing or compacting")
    }

    /// Queues `commit` and returns its result once a leader (perhaps this thread) has written it.
    /// `write` is called by the leader, outside the lock, with the group to write; it must set
    /// every member's result.
    func submit(_ commit: PendingCommit, write: ([PendingCommit]) -> Void) -> Result<
        UInt64, LogStoreError
    > {
        condition.lock()
        if closed {
            condition.unlock()
            return .failure(.closed)
        }
        if let refusal = refusalForHolder() {
            condition.unlock()
            return .failure(refusal)
        }
        waiting.append(commit)
        while !commit.finished && waiting[head] !== commit { condition.wait() }
        if commit.finished {
            condition.unlock()
            return commit.result ?? .failure(.closed)
        }
        var group = [commit]
        var bytes = commit.batch.records.count
        var index = head + 1
        while index < waiting.count && bytes < Self.groupLimit && !waiting[index].isHold {
            group.append(waiting[index])
            bytes += waiting[index].batch.records.count
            index += 1
        }
        condition.unlock()

        write(group)

        condition.lock()
        finish(group)
        condition.unlock()
        return commit.result ?? .failure(.closed)
    }

    /// Marks `group` (at the front) done and wakes the waiters. Called under the lock.
    private func finish(_ group: [PendingCommit]) {
        for member in group { member.finished = true }
        head += group.count
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
        condition.broadcast()
    }

    /// Waits until every commit queued before has been written, then holds the leader's role
    /// for the calling thread until ``release(_:)``; returns the place it holds.
    /// - Throws: ``LogStoreError/closed``; ``LogStoreError/invalidArgument(_:)`` if this thread
    ///   already holds the queue.
    func hold() throws -> PendingCommit {
        condition.lock()
        defer { condition.unlock() }
        if closed { throw LogStoreError.closed }
        if let refusal = refusalForHolder() { throw refusal }
        let place = PendingCommit(batch: WriteBatch(), durability: .buffered, isHold: true)
        waiting.append(place)
        while waiting[head] !== place { condition.wait() }
        holder = pthread_self()
        return place
    }

    /// Gives up a place taken with ``hold()``: the commits queued behind it go on.
    func release(_ place: PendingCommit) {
        condition.lock()
        defer { condition.unlock() }
        // Invariant: a held place is at the front until released.
        assert(waiting[head] === place)
        holder = nil
        finish([place])
    }

    /// Refuses new commits, calls `closing` (outside the lock: it may end a streaming commit),
    /// waits for those queued to finish, then runs `body` with no leader active. Returns
    /// `false` (without running either) if already closed.
    func close(closing: () -> Void = {}, _ body: () -> Void) -> Bool {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return false
        }
        closed = true
        condition.unlock()
        closing()
        condition.lock()
        defer { condition.unlock() }
        while head < waiting.count { condition.wait() }
        body()
        return true
    }

    /// Runs `body` once the commits queued before have been written, while no leader writes,
    /// holding back the commits submitted meanwhile (for `sync` and compaction's swap). It takes
    /// a place in the queue, so a steady stream of commits cannot keep it waiting.
    func exclusive<T>(_ body: () throws -> T) throws -> T {
        condition.lock()
        defer { condition.unlock() }
        if let refusal = refusalForHolder() { throw refusal }
        let place = PendingCommit(batch: WriteBatch(), durability: .buffered, isHold: true)
        waiting.append(place)
        while waiting[head] !== place { condition.wait() }
        defer { finish([place]) }
        if closed { throw LogStoreError.closed }
        return try body()
    }

    /// How many commits and places are queued (for tests).
    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting.count - head
    }
}
