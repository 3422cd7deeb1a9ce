import Dispatch
import LogStore
import Synchronization

/// Where a container's commits are published to its observers: change streams and handlers.
///
/// Commits publish under the container's save lock, so observers get them in commit order.
/// Streams are yielded to at once (buffered without bound); handlers run on one private serial
/// queue, so they never run concurrently with each other and may save.
///
/// Thread safety: `Sendable`; state is behind a lock.
final class ChangeHub: Sendable {
    private struct State {
        var nextID = 0
        var streams: [Int: AsyncStream<SavedChanges>.Continuation] = [:]
        var handlers: [Int: @Sendable (SavedChanges) -> Void] = [:]
        var finished = false
        /// Whether ``delivery`` carries ``deliveryKey`` yet: set with the first handler, not at
        /// init, because a queue with a specific value disposes of it asynchronously (libdispatch
        /// queues its destructor on a global queue), so every container without handlers would
        /// leave work behind it when it goes.
        var deliveryMarked = false
    }

    private let state = Locked(State())
    /// Streams plus handlers, for the lock-free check savers make.
    private let observers = Atomic<Int>(0)
    private let delivery = DispatchQueue(label: "Logbook.changes")
    private static let deliveryKey = DispatchSpecificKey<Bool>()

    deinit { finish() }

    /// Whether anyone observes: savers compute changes only then.
    var isObserved: Bool { observers.load(ordering: .acquiring) > 0 }

    /// Hands `changes` to every observer. Called under the save lock.
    func publish(_ changes: SavedChanges) {
        state.withLock { state in
            for continuation in state.streams.values { continuation.yield(changes) }
            guard !state.handlers.isEmpty else { return }
            let ids = Array(state.handlers.keys).sorted()
            delivery.async { [self] in
                for id in ids {
                    // A handler cancelled since the commit is skipped.
                    guard let handler = self.state.withLock({ $0.handlers[id] }) else { continue }
                    handler(changes)
                }
            }
        }
    }

    /// A new stream of every commit published from now on; it ends at ``finish()``.
    func makeStream() -> AsyncStream<SavedChanges> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SavedChanges.self, bufferingPolicy: .unbounded)
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.streams[state.nextID] = continuation
            observers.add(1, ordering: .releasing)
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let removed = self.state.withLock { $0.streams.removeValue(forKey: id) != nil }
            if removed { self.observers.subtract(1, ordering: .releasing) }
        }
        return stream
    }

    /// Registers `handler`; returns its identifier for ``removeHandler(_:)``.
    func addHandler(_ handler: @escaping @Sendable (SavedChanges) -> Void) -> Int {
        state.withLock { state in
            // Before any handler can run on the queue (publish sends there only once one is
            // registered), so a handler that removes one knows it is on the queue.
            if !state.deliveryMarked {
                delivery.setSpecific(key: Self.deliveryKey, value: true)
                state.deliveryMarked = true
            }
            state.nextID += 1
            state.handlers[state.nextID] = handler
            observers.add(1, ordering: .releasing)
            return state.nextID
        }
    }

    /// Unregisters a handler. When it returns the handler is not running (unless this is
    /// called from a handler) and is not called again.
    func removeHandler(_ id: Int) {
        let removed = state.withLock { $0.handlers.removeValue(forKey: id) != nil }
        guard removed else { return }
        observers.subtract(1, ordering: .releasing)
        if DispatchQueue.getSpecific(key: Self.deliveryKey) != true { delivery.sync {} }
    }

    /// Ends every stream (the container closed); later streams end at once.
    func finish() {
        let streams = state.withLock { state in
            state.finished = true
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        if !streams.isEmpty { observers.subtract(streams.count, ordering: .releasing) }
        for continuation in streams { continuation.finish() }
    }
}
