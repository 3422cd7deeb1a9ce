import Foundation
import LogStore

/// Runs `body` on a thread of its own — not on the Swift concurrency pool, which blocking tests
/// running in parallel can fill for longer than a child process may wait to be killed.
final class BackgroundThread<Result: Sendable>: Sendable {
    private let result = Locked<Result?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Result) {
        let thread = Thread { [self] in
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.start()
    }

    /// Waits for `body` to finish and returns what it returned.
    func value() -> Result {
        done.wait()
        return result.withLock { $0! }
    }
}
