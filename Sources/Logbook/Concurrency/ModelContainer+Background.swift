import Dispatch

extension ModelContainer {
    /// Runs `body` on a background queue with a new context of this container, and returns
    /// what it returns — Core Data's `performBackgroundTask`, with async/await.
    ///
    /// ```swift
    /// let imported = try await container.performBackgroundTask { context in
    ///     for name in names { context.insert(Employee(name: name)) }
    ///     try context.save()
    ///     return names.count
    /// }
    /// ```
    /// The context exists only for the call: what `body` does not save is discarded. `body`
    /// runs on a dispatch queue, not on the caller's actor and not on Swift's cooperative
    /// threads (saves wait for the disk). For work that keeps state between calls, use a
    /// ``ModelActor``.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func performBackgroundTask<Value: Sendable>(
        _ body: @escaping @Sendable (ModelContext) throws -> Value
    ) async throws -> Value {
        let core = self.core
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                let context = ModelContext(mainOf: core)
                continuation.resume(with: Result { try body(context) })
            }
        }
    }
}
