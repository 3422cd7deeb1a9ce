import Foundation
import LogStore

extension ModelContext {
    /// Whether the context saves by itself. `true` for ``ModelContainer/mainContext``, `false`
    /// for other contexts, as in SwiftData.
    ///
    /// Save points:
    /// - **After a change**, on the context's actor: a context that lives on an actor (the main
    ///   context on the main actor, a ``ModelActor``'s context on its executor) schedules a save
    ///   there when a change is made there. It runs once the actor is free — when the code in
    ///   progress returns or suspends and what was queued before it has run — and saves every
    ///   change made until then in one commit; changes made while it waits join it.
    /// - **At ``ModelContainer/close()``** called on the context's actor: what is pending is
    ///   saved before the store closes.
    ///
    /// A context made with ``init(_:)`` lives on no actor: it saves only when told to, whatever
    /// this says. An autosave that throws (a conflict, a required value missing) leaves the
    /// changes pending and the error for the next ``save()`` to report; the next change
    /// schedules a new attempt.
    public var autosaveEnabled: Bool {
        get { coordination.autosaveEnabled }
        set {
            coordination.autosaveEnabled = newValue
            if newValue, let home = coordination.home {
                core.autosaves.register(self, home: home)
            }
            armAutosave()
            if newValue && hasChanges { changeWasMade() }
        }
    }

    /// Makes `home` the actor the context lives on (once, when it is made).
    func live(on home: ContextHome) {
        coordination.home = home
        if coordination.autosaveEnabled { core.autosaves.register(self, home: home) }
    }

    /// Called (by the table) at the first change since the last autosave: schedules one if
    /// the change is made on the context's actor.
    func changeWasMade() {
        guard coordination.autosaveEnabled, !coordination.autosaveScheduled,
            let home = coordination.home, home.isCurrent
        else { return }
        coordination.autosaveScheduled = true
        table.reportsNextChange = false
        let reference = WeakBox(self)
        // Runs on `home`, the only place the context is used.
        home.schedule { reference.value?.autosave() }
    }

    /// The scheduled save.
    private func autosave() {
        coordination.autosaveScheduled = false
        armAutosave()
        guard coordination.autosaveEnabled, coordination.transactionDepth == 0, hasChanges else {
            return
        }
        try? save()
    }

    /// Has the table report the next change, if an autosave would follow it.
    private func armAutosave() {
        table.reportsNextChange =
            coordination.autosaveEnabled && coordination.home != nil
            && !coordination.autosaveScheduled
    }
}

/// A context's place among actors and its autosave and transaction state.
struct ContextCoordination {
    /// The actor the context lives on, if any.
    var home: ContextHome?
    var autosaveEnabled = false
    var autosaveScheduled = false
    /// Depth of ``ModelContext/transaction(_:)`` blocks running.
    var transactionDepth = 0
}

/// Where a context lives: the actor its autosave runs on.
enum ContextHome: Sendable {
    case mainActor
    case executor(ExecutorHome)

    /// Whether the calling code runs on this actor.
    var isCurrent: Bool {
        switch self {
        case .mainActor: DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
        case .executor(let home): home.executor?.isCurrent ?? false
        }
    }

    /// Set on the main queue, where the main actor runs. (Not `Thread.isMainThread`: on Linux the
    /// main queue may be drained on another thread, such as after `dispatchMain()`.)
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Runs `work` on this actor, after what is queued there.
    func schedule(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .mainActor: DispatchQueue.main.async(execute: work)
        case .executor(let home): home.executor?.schedule(work)
        }
    }
}

/// A model actor's executor, held weakly (it owns the context that names it).
final class ExecutorHome: Sendable {
    private let reference: WeakBox<DefaultSerialModelExecutor>
    init(_ executor: DefaultSerialModelExecutor) { reference = WeakBox(executor) }
    var executor: DefaultSerialModelExecutor? { reference.value }
}

/// The container's contexts with autosave on that live on an actor, for ``ModelContainer/close()``.
final class AutosaveRegistry: Sendable {
    private let entries = Locked<[(context: WeakBox<ModelContext>, home: ContextHome)]>([])

    func register(_ context: ModelContext, home: ContextHome) {
        entries.withLock { entries in
            entries.removeAll { $0.context.value == nil || $0.context.value === context }
            entries.append((WeakBox(context), home))
        }
    }

    /// Saves the pending changes of every registered context with autosave on whose actor is
    /// the caller's. Contexts of other actors are not touched (their scheduled saves run there).
    /// - Throws: what the first failing save throws (the contexts after it are not saved).
    func saveContextsOfCurrentActor() throws {
        let current = entries.withLock { entries in
            entries.filter { $0.home.isCurrent }.map(\.context)
        }
        for reference in current {
            // On the context's actor: safe to use it.
            guard let context = reference.value, context.autosaveEnabled, context.hasChanges
            else { continue }
            try context.save()
        }
    }
}

extension ModelContext {
    /// A container's main context: it lives on the main actor and autosaves.
    static func makeMain(of core: ContainerCore) -> ModelContext {
        let context = ModelContext(mainOf: core)
        context.live(on: .mainActor)
        context.autosaveEnabled = true
        return context
    }
}
