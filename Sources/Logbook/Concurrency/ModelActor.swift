import Dispatch

/// An actor that owns a ``ModelContext``: the context is used only on the actor's executor, so
/// background work with models is checked by the compiler like any actor state.
///
/// Without macros, an actor declares its container and executor itself:
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelContainer: ModelContainer
///     nonisolated let modelExecutor: any ModelExecutor
///
///     init(modelContainer: ModelContainer) {
///         self.modelContainer = modelContainer
///         modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///     }
///
///     func importNames(_ names: [String]) throws {
///         for name in names { modelContext.insert(Employee(name: name)) }
///         try modelContext.save()
///     }
/// }
/// ```
/// The actor's methods reach the context as ``modelContext``; code outside the actor cannot (the
/// compiler refuses to let a `ModelContext` or a model leave it). Pass
/// ``PersistentIdentifier``s in and out instead, and fetch them with ``ModelContext/model(for:as:)``.
public protocol ModelActor: Actor {
    /// The container the actor's context belongs to.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on, which owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor runs on its model executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        modelExecutor.asUnownedSerialExecutor()
    }

    /// The actor's context; reachable only from the actor's own code.
    public var modelContext: ModelContext { modelExecutor.modelContext(isolatedTo: self) }
}

/// The serial executor of a ``ModelActor``, which owns the actor's context.
///
/// ``DefaultSerialModelExecutor`` is the one to use; a conforming type must run jobs one at a
/// time and return the same context every time.
public protocol ModelExecutor: SerialExecutor {
    /// The context this executor owns, for code isolated to the actor it runs.
    func modelContext(isolatedTo actor: isolated any ModelActor) -> ModelContext
}

/// A serial executor running its jobs, one at a time, on a dispatch queue of its own, and owning
/// a context that only those jobs use.
///
/// Thread safety: `Sendable`. The context is reached only by code running on the executor (the
/// actor's methods, and its autosave).
public final class DefaultSerialModelExecutor: ModelExecutor, @unchecked Sendable {
    // Safe: `context` is used only on `queue` (jobs of the actor, and its autosave).
    private nonisolated(unsafe) let context: ModelContext
    private let queue: DispatchQueue
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// An executor owning `modelContext`, with a new serial queue. The context must not be used
    /// anywhere else afterwards (the compiler checks that it is not).
    public init(modelContext: sending ModelContext) {
        context = modelContext
        queue = DispatchQueue(label: "Logbook.ModelActor")
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        modelContext.live(on: .executor(ExecutorHome(self)))
    }

    /// Runs `job` on the executor's queue, after the jobs before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Traps unless called from one of the executor's jobs.
    public func checkIsolated() {
        precondition(isCurrent, "not running on this ModelActor's executor")
    }

    /// The owned context.
    public func modelContext(isolatedTo actor: isolated any ModelActor) -> ModelContext {
        context
    }

    /// Whether the calling code runs on the executor's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) }

    /// Runs `work` on the executor's queue after the jobs queued before it.
    func schedule(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
}
