import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's index lock: the ``StoreState`` every reader and the writer share, and what open
/// found (``RecoveryReport``), which a check of the key directory file left for later may amend.
///
/// Open maps the tables of a key directory file without reading them
/// (``PendingKeyDirectoryCheck``). Until they are checked, only point reads use them, each
/// checking the blocks its probe reads (``withLockForPointRead(_:)``); a walk or a count of one
/// keyspace checks that keyspace's table whole first (``withLock(checkingOnly:_:)``); a view
/// checks its reads the same two ways
/// (``checkForView(key:keyspace:id:sequence:rebuilds:storePath:)``); every other use of the
/// index (``withLock(_:)``: writes, compaction, close) first
/// checks every table whole, as open used to, and if a check fails rebuilds the index from
/// hints and segments, as open would have. So no answer ever comes from a table that failed a check, and
/// no write ever lands on one.
///
/// Thread safety: as ``Locked``. Lock order: the index, then the report.
package struct StoreStateLock: ~Copyable {
    private let state: Locked<StoreState>
    private let report: Locked<RecoveryReport>
    /// Whether a check may still be pending: cleared once it ran, so that a writer asks
    /// (``settleBeforeWriting()``) without taking the lock.
    private let mayBePending: Atomic<Bool>

    init(_ state: consuming sending StoreState, report: RecoveryReport) {
        mayBePending = Atomic(state.hasPendingCheck)
        self.state = Locked(state)
        self.report = Locked(report)
    }

    /// Runs the pending check, if any, before a write: writes never land on an unchecked table.
    /// Returns `false` if the store is closed (as after a failed rebuild).
    func settleBeforeWriting() -> Bool {
        guard mayBePending.load(ordering: .relaxed) else { return true }
        return state.withLock { state in
            settle(&state)
            return !state.closed
        }
    }

    /// What open found and repaired, after the pending check (if any) ran: a rebuild amends it.
    var recovery: RecoveryReport {
        state.withLock { settle(&$0) }
        return report.withLock { $0 }
    }

    /// Waits for the lock, checks the key directory file's tables whole if open left them
    /// unchecked (rebuilding the index if one fails), then runs `body` with the state.
    /// - Throws: what `body` throws.
    borrowing func withLock<Result, E: Error>(
        _ body: (inout sending StoreState) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try state.withLock { (state: inout sending StoreState) throws(E) -> sending Result in
            if _slowPath(state.hasPendingCheck) { settle(&state) }
            return try body(&state)
        }
    }

    /// ``withLock(_:)`` for a walk or a count of one keyspace: checks that keyspace's table whole
    /// if open left it unchecked (rebuilding the index if it fails), and leaves the others for
    /// later.
    borrowing func withLock<Result, E: Error>(
        checkingOnly keyspace: String,
        _ body: (inout sending StoreState) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try state.withLock { (state: inout sending StoreState) throws(E) -> sending Result in
            if _slowPath(state.hasPendingCheck) { settle(&state, keyspace: keyspace) }
            return try body(&state)
        }
    }

    /// Runs `body` with the state, leaving the key directory file's tables unchecked if open
    /// left them so: for what the file's header records under its own checksum (the last
    /// sequence number, each keyspace's count), which a rebuild from the log after a failed
    /// check finds again. `body` must read no table.
    borrowing func withLockLeavingTablesUnchecked<Result, E: Error>(
        _ body: (inout sending StoreState) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try state.withLock(body)
    }

    /// Whether open skipped damaged bytes (a salvage), known without the pending check: a
    /// rebuild after a failed check never skips any (it fails instead, closing the store).
    var skippedAtOpen: Bool { report.withLock { !$0.skipped.isEmpty } }

    /// ``withLock(_:)`` if the lock is free; `nil` at once if another thread holds it.
    borrowing func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending StoreState) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        try state.withLockIfAvailable {
            (state: inout sending StoreState) throws(E) -> sending Result in
            if _slowPath(state.hasPendingCheck) { settle(&state) }
            return try body(&state)
        }
    }

    /// Runs `body` with the state without the whole check: for point reads only, which must call
    /// ``checkProbe(_:key:in:storePath:)`` before they follow an entry of the keyspace.
    borrowing func withLockForPointRead<Result, E: Error>(
        _ body: (inout sending StoreState) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try state.withLock(body)
    }

    /// Checks what a probe for `key` in keyspace `id` reads of a table still unchecked (the blocks
    /// it passes and each entry on the way), and the table whole once every block of it has
    /// been checked so; if a check fails, checks nothing more and rebuilds the index from hints
    /// and segments. Call it under the lock (``withLockForPointRead(_:)``).
    /// - Throws: ``LogStoreError`` if the rebuild fails (the store is then closed).
    @inline(never)
    borrowing func checkProbe(
        _ state: inout StoreState, key: UnsafeRawBufferPointer, in id: Int, storePath: String
    ) throws(LogStoreError) {
        guard state.hasPendingCheck else { return }
        let entries = state.directories[id].entries
        let everyBlockChecked: Bool
        do {
            everyBlockChecked = try state.checkPendingProbe(
                hash: KeyDirectory.hash(key), entries: entries, in: id)
        } catch {
            let pending = state.pendingCheck!
            state.setPendingCheck(nil)
            mayBePending.store(false, ordering: .relaxed)
            try rebuild(&state, pending, reason: error.reason)
            return
        }
        if everyBlockChecked { try settle(&state, id: id) }
    }

    /// For a read through a view of `keyspace` (keyspace number `id`) made at commit
    /// `sequence` while its table was unchecked, `rebuilds` rebuilds after open: checks what a
    /// probe for `key` reads, as a point read does, or with no key (a walk, a batch, a count)
    /// the table whole, as a walk of the keyspace does; a failed check rebuilds the index.
    /// Returns `nil` if the view may read the table it was made with, else the rebuilt index's
    /// table and segment bases, which it reads instead.
    /// - Throws: ``LogStoreError/closed``;
    ///   ``LogStoreError/damagedKeyDirectory(path:reason:)`` if the index was rebuilt after a
    ///   later commit (the view's table cannot be trusted, nor the rebuilt one stand for it);
    ///   what a rebuild throws.
    borrowing func checkForView(
        key: UnsafeRawBufferPointer?, keyspace: String, id: Int, sequence: UInt64, rebuilds: Int,
        storePath: String
    ) throws(LogStoreError) -> (KeyDirectory, SegmentBases)? {
        try state.withLock { state throws(LogStoreError) -> (KeyDirectory, SegmentBases)? in
            guard !state.closed else { throw .closed }
            if state.rebuilds == rebuilds {
                if let key {
                    try checkProbe(&state, key: key, in: id, storePath: storePath)
                } else {
                    try settle(&state, id: id)
                }
                if state.rebuilds == rebuilds { return nil }
            }
            guard state.lastSequence == sequence else {
                throw .damagedKeyDirectory(
                    path: storePath + "/" + KeyDirectoryFile.name,
                    reason: "a view of keyspace \"\(keyspace.prefix(40))\" made before commit "
                        + "\(state.lastSequence) reads a table that failed a check; the index "
                        + "was rebuilt since: read through a new view")
            }
            let directory = state.keyspaces.id(of: keyspace).map { state.directories[$0] }
            return (directory ?? KeyDirectory(), state.bases)
        }
    }

    /// Checks every table whole; rebuilds the index if one fails. A rebuild that fails closes
    /// the store (its report says why).
    private borrowing func settle(_ state: inout StoreState) {
        guard let pending = state.pendingCheck else { return }
        state.setPendingCheck(nil)
        mayBePending.store(false, ordering: .relaxed)
        do {
            try pending.checkAll(state.directories)
        } catch {
            try? rebuild(&state, pending, reason: error.reason)
        }
    }

    /// Checks keyspace `keyspace`'s table whole, if it is still unchecked; rebuilds the index
    /// if it fails, as ``settle(_:)`` does.
    private borrowing func settle(_ state: inout StoreState, keyspace: String) {
        guard let id = state.keyspaces.id(of: keyspace) else { return }
        try? settle(&state, id: id)
    }

    /// Checks keyspace `id`'s table whole, if it is still unchecked, and holds it no longer;
    /// rebuilds the index if it fails, as ``settle(_:)`` does.
    /// - Throws: ``LogStoreError`` if the rebuild fails (the store is then closed).
    private borrowing func settle(_ state: inout StoreState, id: Int) throws(LogStoreError) {
        guard var pending = state.pendingCheck else { return }
        do {
            try pending.checkTable(id, of: state.directories)
            state.setPendingCheck(pending)
            if !state.hasPendingCheck { mayBePending.store(false, ordering: .relaxed) }
        } catch {
            state.setPendingCheck(nil)
            mayBePending.store(false, ordering: .relaxed)
            try rebuild(&state, pending, reason: error.reason)
        }
    }

    private borrowing func rebuild(
        _ state: inout StoreState, _ pending: PendingKeyDirectoryCheck, reason: String
    ) throws(LogStoreError) {
        let open = report.withLock { $0 }
        do {
            let (rebuilt, amended) = try pending.rebuild(
                segments: state.segments.compactMap { $0 }, report: open, reason: reason)
            state.replaceIndex(with: rebuilt)
            report.withLock { $0 = amended }
        } catch {
            let failure =
                (error as? LogStoreError)
                ?? .io(operation: "open", path: pending.path, errno: EIO)
            state.closed = true
            report.withLock {
                $0.usedKeyDirectory = false
                $0.ignoredKeyDirectory = reason
                $0.notes.append(
                    "the key directory file failed a check after open (\(reason)), and rebuilding the index from hints and segments failed (\(failure)); the store was closed: open it again"
                )
            }
            throw failure
        }
    }
}
