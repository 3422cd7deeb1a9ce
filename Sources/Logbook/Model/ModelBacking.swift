/// What a context knows about one registered object: identity, state, version, and the saved
/// values while it has unsaved changes.
///
/// Ownership: the object holds its backing (through its `@Attribute` fields, or directly for a
/// ``ManagedObject``); the backing points back without retaining, except while the object has
/// pending changes (`pinned`). The context's registry holds backings; a registry entry whose
/// backing is referenced by nothing else belongs to an object that is gone.
/// Not thread-safe: used on its context's thread.
@usableFromInline
final class ModelBacking {
    enum State {
        /// Inserted, never saved.
        case inserted
        /// Stored; `isChanged` says whether values differ from the store.
        case persisted
        /// Deletion pending (or saved).
        case deleted
        /// Inserted then deleted before any save: forgotten.
        case forgotten
    }

    let binding: EntityBinding
    let primaryKey: UInt64
    unowned(unsafe) let object: AnyObject
    /// The context, through a handle all its backings share (one weak reference per context,
    /// not one per object).
    private let handle: ContextHandle?
    var context: ModelContext? { handle?.context }
    var state: State
    var isChanged = false
    /// The object version of the stored record this object was read from or last saved as
    /// (0 for a new object).
    var version: UInt64
    /// The container's save generation when the values were read or last saved.
    var readGeneration: UInt64 = 0
    /// Strong reference to the object while it has pending changes.
    var pinned: AnyObject?
    /// Set on the prototype object used to resolve key paths to attributes.
    @usableFromInline var isProbe = false
    /// Rarely used state, kept out of line so most backings stay small.
    private var extras: BackingExtras?

    private var ensuredExtras: BackingExtras {
        if let extras { return extras }
        let made = BackingExtras()
        extras = made
        return made
    }

    /// Stored values, kept at the first change for rollback.
    var snapshot: [AttributeValue]? {
        get { extras?.snapshot }
        set { if newValue != nil || extras != nil { ensuredExtras.snapshot = newValue } }
    }
    /// A failed non-throwing write, thrown by the next save.
    var failure: LogbookError? {
        get { extras?.failure }
        set { if newValue != nil || extras != nil { ensuredExtras.failure = newValue } }
    }
    var probedSlot: Int {
        get { extras?.probedSlot ?? -1 }
        set { ensuredExtras.probedSlot = newValue }
    }
    var probedKeyPath: AnyKeyPath? {
        get { extras?.probedKeyPath }
        set { ensuredExtras.probedKeyPath = newValue }
    }

    /// Called by an `@Attribute` getter on a probe object.
    @usableFromInline
    func noteProbe(slot: Int, keyPath: AnyKeyPath) {
        probedSlot = slot
        probedKeyPath = keyPath
    }

    init(
        binding: EntityBinding, primaryKey: UInt64, object: AnyObject, context: ContextHandle?,
        state: State, version: UInt64
    ) {
        self.binding = binding
        self.primaryKey = primaryKey
        self.object = object
        self.handle = context
        self.state = state
        self.version = version
    }

    var identifier: PersistentIdentifier {
        PersistentIdentifier(entityName: binding.entity.name, primaryKey: primaryKey)
    }

    /// Called before a value changes: keeps the saved values and tells the context.
    @usableFromInline
    func willChange() {
        guard state == .persisted, !isChanged, !isProbe else { return }
        snapshot = binding.readAll(object)
        isChanged = true
        pinned = object
        context?.backingDidChange(self)
    }

    func recordFailure(_ error: LogbookError) {
        if failure == nil { failure = error }
        if state == .persisted && !isChanged {
            willChange()
        }
    }
}

/// A weak reference to a context, shared by the backings of its objects.
final class ContextHandle {
    weak var context: ModelContext?
    init(_ context: ModelContext) { self.context = context }
}

/// The rarely set part of a ``ModelBacking``.
final class BackingExtras {
    var snapshot: [AttributeValue]?
    var failure: LogbookError?
    var probedSlot = -1
    var probedKeyPath: AnyKeyPath?
}
