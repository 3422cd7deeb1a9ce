import Foundation

/// Counts a container's commits and lets a thread wait for the next one: how a replica
/// learns, without polling, that the app saved.
///
/// Thread safety: `Sendable`; the count is behind a condition's lock.
final class CommitSignal: @unchecked Sendable {  // state guarded by `condition`
    private let condition = NSCondition()
    private var count: UInt64 = 0

    /// The number of commits so far.
    var current: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// Records a commit and wakes the waiters.
    func bump() {
        condition.lock()
        count &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the count passes `seen` or `timeout` seconds pass; returns the count.
    @discardableResult
    func wait(after seen: UInt64, timeout: Double) -> UInt64 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while count == seen {
            if !condition.wait(until: deadline) { break }
        }
        return count
    }
}
