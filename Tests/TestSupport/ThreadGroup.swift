import Foundation

/// Threads of their own for a test's background loops, and a wait for all of them. Unlike
/// `DispatchQueue.global().async`, each starts at once: with every worker of its pool busy (two
/// on two cores), libdispatch starts another only after about a second.
public final class ThreadGroup: Sendable {
    private let done = DispatchGroup()

    public init() {}

    /// Runs `body` on a new thread.
    public func start(_ body: @escaping @Sendable () -> Void) {
        done.enter()
        Thread.detachNewThread { [done] in
            body()
            done.leave()
        }
    }

    /// Waits until every thread started has returned.
    public func wait() { done.wait() }
}
