import Foundation

/// One commit waiting to be written.
final class PendingCommit: @unchecked Sendable {
    let batch: WriteBatch
    let durability: Durability
    /// Set by the leader that wrote it, outside the queue's lock; read by others only once
    /// `finished` is set.
    var result: Result<UInt64, LogStoreError>?
    /// Set by the leader under the queue's lock after `result`: publishes it to the submitter.
    var finished = false

    init(batch: WriteBatch, durability: Durability) {
        self.batch = batch
        self.durability = durability
    }
}

/// Group commit: commits queue up; the one at the front becomes the leader, takes the commits
/// queued behind it, writes them with one append and at most one `fdatasync`, then wakes them.
/// Only one leader runs at a time, so the leader owns the writer state without a lock of its own.
final class CommitQueue: @unchecked Sendable {
    /// A group stops growing past this many bytes of batches (a lone larger batch still goes).
    static let groupLimit = 4 << 20

    private let condition = NSCondition()
    private var waiting: [PendingCommit] = []
    private var head = 0  // waiting[head...] are queued; the prefix is being dropped lazily
    private var closed = false

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
        waiting.append(commit)
        while !commit.finished && waiting[head] !== commit { condition.wait() }
        if commit.finished {
            condition.unlock()
            return commit.result ?? .failure(.closed)
        }
        var group = [commit]
        var bytes = commit.batch.records.count
        var index = head + 1
        while index < waiting.count && bytes < Self.groupLimit {
            group.append(waiting[index])
            bytes += waiting[index].batch.records.count
            index += 1
        }
        condition.unlock()

        write(group)

        condition.lock()
        for member in group { member.finished = true }
        head += group.count
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
        condition.broadcast()
        condition.unlock()
        return commit.result ?? .failure(.closed)
    }

    /// Refuses new commits, waits for those queued to finish, then runs `body` with no leader
    /// active. Returns `false` (without running `body`) if already closed.
    func close(_ body: () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        closed = true
        while head < waiting.count { condition.wait() }
        body()
        return true
    }

    /// Runs `body` while no leader writes, holding new commits back (for `sync` and compaction's swap).
    func exclusive<T>(_ body: () throws -> T) throws -> T {
        condition.lock()
        defer { condition.unlock() }
        while head < waiting.count { condition.wait() }
        if closed { throw LogStoreError.closed }
        return try body()
    }
}
