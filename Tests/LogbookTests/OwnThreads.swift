import Foundation
import LogStore

/// Runs `body(i)` for i in 0..<count, each on a thread of its own — not on the Swift
/// concurrency pool, which tests blocking in parallel can fill (two threads on two cores) —
/// and returns once every one has returned, rethrowing the first error.
func onOwnThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
    let errors = Locked<[any Error]>([])
    let done = DispatchSemaphore(value: 0)
    for i in 0..<count {
        let thread = Thread {
            do { try body(i) } catch { errors.withLock { $0.append(error) } }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { done.wait() }
    if let error = errors.withLock({ $0.first }) { throw error }
}

/// Starts `body` on a thread of its own; `wait()` returns once it is done, rethrowing its error.
final class OwnThread: Sendable {
    private let error = Locked<(any Error)?>(nil)
    private let finished = Locked(false)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            do { try body() } catch { self.error.withLock { $0 = error } }
            finished.withLock { $0 = true }
            done.signal()
        }
        thread.start()
    }

    /// Whether `body` has returned.
    var isFinished: Bool { finished.withLock { $0 } }

    /// Waits for `body` to return; rethrows what it threw.
    func wait() throws {
        done.wait()
        done.signal()
        if let error = error.withLock({ $0 }) { throw error }
    }
}
