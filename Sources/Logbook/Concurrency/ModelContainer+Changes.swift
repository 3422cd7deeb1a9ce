extension ModelContainer {
    /// The changes of every commit made after this call returns — saves of any context of the
    /// container and batch operations — one element per commit, in commit order.
    ///
    /// ```swift
    /// for await changes in container.changes() {
    ///     context.merge(changes)
    /// }
    /// ```
    /// Each call is a new subscription with its own unbounded buffer: iterate it, or let it go
    /// (dropping or cancelling the iteration unsubscribes). The sequence ends when the container
    /// closes.
    public func changes() -> AsyncStream<SavedChanges> {
        // Under the save lock, so no commit is half-way between computing and publishing its
        // changes: every later commit is delivered, no earlier one is.
        core.saveLock.withLock { _ in core.changeHub.makeStream() }
    }

    /// Calls `handler` with the changes of every commit made after this call returns, in commit
    /// order, until the returned observation is cancelled or released.
    ///
    /// Handlers run one at a time on a private serial queue, after the commit is visible (so
    /// they may fetch, save or hop to an actor); keep them short, since they delay the ones
    /// after them.
    public func observeChanges(_ handler: @escaping @Sendable (SavedChanges) -> Void)
        -> ChangeObservation
    {
        let hub = core.changeHub
        let id = core.saveLock.withLock { _ in hub.addHandler(handler) }
        return ChangeObservation { hub.removeHandler(id) }
    }
}

/// A registration made by ``ModelContainer/observeChanges(_:)``. Keep it for as long as the
/// handler should be called: ``cancel()`` or releasing it unregisters the handler.
public final class ChangeObservation: Sendable {
    private let stop: @Sendable () -> Void

    init(stop: @escaping @Sendable () -> Void) { self.stop = stop }

    deinit { stop() }

    /// Unregisters the handler. When it returns, the handler is not called again and is not
    /// running (unless `cancel()` is called from the handler itself). Cancelling twice is
    /// harmless.
    public func cancel() { stop() }
}
