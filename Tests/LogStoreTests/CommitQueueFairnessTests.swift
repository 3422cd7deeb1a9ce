import Foundation
import Synchronization
import TestSupport
import Testing

@testable import LogStore

/// `sync` and compaction's steps wait for the commit queue (``CommitQueue/exclusive(_:)``). They
/// take their turn in it: a commit submitted while one waits goes after it, so a writer that
/// commits without pause cannot keep `sync` or `compact` waiting for ever.
@Suite struct CommitQueueFairnessTests {
    /// Waits until `queue` holds `count` commits and places, or two seconds have passed.
    private func waitUntil(_ queue: CommitQueue, holds count: Int) {
        let deadline = Date().addingTimeInterval(2)
        while queue.queued < count && Date() < deadline { usleep(1_000) }
    }

    @Test func aCommitSubmittedWhileExclusiveWaitsGoesAfterIt() throws {
        let queue = CommitQueue()
        let order = Mutex<[String]>([])
        let leaderMayFinish = DispatchSemaphore(value: 0)
        let threads = ThreadGroup()
        // A leader in the middle of writing.
        threads.start {
            _ = queue.submit(PendingCommit(batch: WriteBatch(), durability: .buffered)) { group in
                leaderMayFinish.wait()
                order.withLock { $0.append("first") }
                for member in group { member.result = .success(1) }
            }
        }
        waitUntil(queue, holds: 1)
        threads.start {
            _ = try? queue.exclusive { order.withLock { $0.append("exclusive") } }
        }
        waitUntil(queue, holds: 2)
        threads.start {
            _ = queue.submit(PendingCommit(batch: WriteBatch(), durability: .buffered)) { group in
                order.withLock { $0.append("later") }
                for member in group { member.result = .success(2) }
            }
        }
        waitUntil(queue, holds: 3)
        leaderMayFinish.signal()
        threads.wait()
        #expect(order.withLock { $0 } == ["first", "exclusive", "later"])
        #expect(queue.queued == 0)
    }
}
