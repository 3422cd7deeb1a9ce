/// One atomic commit written in pieces, for a change too large to hold in memory at once (an
/// import of millions of objects). Begun with ``LogStore/beginCommit(durability:)``:
///
/// ```swift
/// let commit = try store.beginCommit()
/// for chunk in chunks { try commit.append(chunk) }   // each a WriteBatch of bounded size
/// let sequence = try commit.finish()
/// ```
///
/// Atomicity: nothing of it is visible to readers, and after a crash nothing of it is in the
/// store, until ``finish()`` returns; then all of it is, whatever its size (up to 4 GiB of
/// encoded operations: FORMAT.md, "Limits"). Memory: each ``append(_:)`` writes its batch's
/// operations to the log before it returns, so the commit costs about one frame buffer (1 MiB)
/// however large it grows; recovery reads it in bounded memory too.
///
/// Other commits wait while it is open: they queue up, in order, and are written after it ends,
/// and so do ``LogStore/sync()`` and compaction. From the thread that holds it, they throw
/// ``LogStoreError/invalidArgument(_:)`` instead of waiting for ever. ``LogStore/close()``
/// cancels it.
///
/// Thread safety: its methods may be called from any thread, one at a time (they take a lock).
/// Dropping it unfinished cancels it.
public final class StreamingCommit: @unchecked Sendable {
    private enum State {
        case open(LogWriter.Stream)
        case finished(UInt64)
        /// Failed or cancelled: what later calls throw.
        case ended(LogStoreError)
    }

    /// The sequence number the commit gets when it finishes.
    public let sequence: UInt64
    private let store: LogStore
    private let writer: LogWriter
    private let place: PendingCommit
    private let state: Locked<State>

    fileprivate init(
        store: LogStore, writer: LogWriter, place: PendingCommit, stream: LogWriter.Stream
    ) {
        self.store = store
        self.writer = writer
        self.place = place
        self.sequence = stream.sequence
        self.state = Locked(.open(stream))
    }

    deinit { cancel() }

    /// Operations appended so far.
    public var operations: Int {
        state.withLock {
            if case .open(let stream) = $0 { return stream.operations }
            return 0
        }
    }

    /// Writes every operation of `batch` into the commit, in order (a later put of the same key
    /// wins, as in one ``WriteBatch``). Nothing becomes visible until ``finish()``. If it throws,
    /// the whole commit is abandoned: every later call throws the same error.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a key, value or keyspace name over the
    ///   limits, or a commit that would outgrow 4 GiB; ``LogStoreError/io(operation:path:errno:)``
    ///   (a full disk); ``LogStoreError/closed`` after ``LogStore/close()`` or ``cancel()``; the
    ///   error that ended it, once it has failed.
    /// - Complexity: O(bytes of `batch`).
    public func append(_ batch: WriteBatch) throws {
        try state.withLock { state throws(LogStoreError) in
            guard case .open(var stream) = state else { throw Self.error(after: state) }
            do {
                try writer.append(batch, to: &stream)
                state = .open(stream)
            } catch {
                state = .ended(end(stream, after: error))
                throw Self.error(after: state)
            }
        }
    }

    /// Ends the commit: with `.sync` durability, returns once all of it is on stable storage;
    /// then all of it is visible. Returns its sequence number. Calling it again returns the same
    /// number.
    /// - Throws: as ``append(_:)``, and ``LogStoreError/io(operation:path:errno:)`` for a failed
    ///   sync (writes are then disabled until reopen, as for any commit).
    /// - Complexity: O(bytes of the commit) to publish it (its records are read back from the
    ///   log, not kept in memory).
    @discardableResult
    public func finish() throws -> UInt64 {
        let sequence = try state.withLock { state throws(LogStoreError) -> UInt64 in
            switch state {
            case .finished(let sequence): return sequence
            case .ended: throw Self.error(after: state)
            case .open(var stream):
                do {
                    let sequence = try writer.finish(&stream, index: store.index)
                    state = .finished(sequence)
                    store.queue.release(place)
                    store.forgetStreamingCommit(self)
                    return sequence
                } catch {
                    state = .ended(end(stream, after: error))
                    throw Self.error(after: state)
                }
            }
        }
        store.considerAutoCompaction()
        return sequence
    }

    /// Abandons the commit: nothing of it is ever visible. Harmless once it has ended.
    public func cancel() {
        state.withLock { state in
            guard case .open(let stream) = state else { return }
            state = .ended(end(stream, after: nil))
        }
    }

    /// Undoes `stream` and lets the queue go on. Called under the state lock.
    private func end(_ stream: LogWriter.Stream, after error: Error?) -> LogStoreError {
        let failure = writer.abandon(stream, after: error)
        store.queue.release(place)
        store.forgetStreamingCommit(self)
        return error == nil ? .closed : failure
    }

    private static func error(after state: State) -> LogStoreError {
        if case .ended(let error) = state { return error }
        return .invalidArgument("the streaming commit has already finished")
    }
}

extension LogStore {
    /// Begins one atomic commit written in pieces: see ``StreamingCommit``. Waits for the commits
    /// already queued; commits made while it is open wait until it finishes or is cancelled.
    /// - Parameter durability: as for ``commit(_:durability:)``; applies at ``StreamingCommit/finish()``.
    /// - Throws: ``LogStoreError/readOnly(path:)``; ``LogStoreError/closed``;
    ///   ``LogStoreError/writesDisabled(path:cause:)``; ``LogStoreError/invalidArgument(_:)`` if
    ///   this thread already has one open; ``LogStoreError/io(operation:path:errno:)``.
    public func beginCommit(durability: Durability? = nil) throws -> StreamingCommit {
        guard let writer else { throw LogStoreError.readOnly(path: path) }
        try commitDeferred()
        let place = try queue.hold()
        do {
            let stream = try writer.beginStream(
                durability: durability ?? options.durability, index: index)
            let commit = StreamingCommit(store: self, writer: writer, place: place, stream: stream)
            openStreamingCommit.withLock { $0 = WeakStreamingCommit(commit) }
            return commit
        } catch {
            queue.release(place)
            throw error
        }
    }

    /// Forgets `commit` as the open one (it has ended).
    fileprivate func forgetStreamingCommit(_ commit: StreamingCommit) {
        openStreamingCommit.withLock { if $0?.commit === commit { $0 = nil } }
    }

    /// Cancels the streaming commit that is open, if any (``close()``).
    func cancelOpenStreamingCommit() {
        let open = openStreamingCommit.withLock { $0?.commit }
        open?.cancel()
    }
}

/// The open streaming commit, held weakly: dropping it cancels it.
struct WeakStreamingCommit {
    weak var commit: StreamingCommit?
    init(_ commit: StreamingCommit) { self.commit = commit }
}
