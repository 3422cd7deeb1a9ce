extension ModelContext {
    /// Runs `block` and saves its changes in one commit: all of them are stored, or none.
    ///
    /// ```swift
    /// try context.transaction {
    ///     from.balance -= amount
    ///     to.balance += amount
    /// }
    /// ```
    /// Changes pending when it is called are saved first, in a commit of their own (if that
    /// save throws, `block` does not run), so the transaction's commit holds exactly the block's
    /// changes. If `block` or the final save throws, the block's changes are rolled back — the
    /// context is as it was when `block` started, with nothing pending — and the error is
    /// rethrown.
    ///
    /// Inside `block`, ``save()`` saves nothing (the transaction saves at its end), and a
    /// transaction joins the one it runs in. Batch operations (``delete(model:where:)``,
    /// ``update(model:where:set:)``) commit at once, inside a block as anywhere.
    /// - Returns: what `block` returns.
    /// - Throws: what `block` throws, or what ``save()`` throws.
    public func transaction<Value>(_ block: () throws -> Value) throws -> Value {
        guard coordination.transactionDepth == 0 else { return try block() }
        try save()
        coordination.transactionDepth = 1
        let result: Value
        do {
            result = try block()
            coordination.transactionDepth = 0
            try save()
        } catch {
            coordination.transactionDepth = 0
            rollback()
            throw error
        }
        return result
    }

    /// Whether a ``transaction(_:)`` block is running, so ``save()`` waits for its end.
    var savesDeferredByTransaction: Bool { coordination.transactionDepth > 0 }
}
