import Foundation
import LogStore
import Synchronization

/// An open store with its schema: the entry point of an app.
///
/// ```swift
/// let container = try ModelContainer(for: [Employee.self], at: URL(filePath: "Employees.logbook"))
/// let context = container.mainContext
/// ```
/// Opening writes the schema into the store, migrating a stored one when only entities or
/// optional/defaulted attributes were added. Thread safety: the container is `Sendable`; make
/// one ``ModelContext`` per thread or actor (``mainContext`` belongs to the main actor). Saves of all its contexts are serialized. The store closes when the container
/// and all its contexts are gone, or at ``close()``.
public final class ModelContainer: Sendable {
    /// What every context of the container shares: the store, the bindings, the save log.
    let core: ContainerCore
    // Invariant: set once in init; read only on the main actor (``mainContext``).
    nonisolated(unsafe) private var main: ModelContext?

    /// The store's directory.
    public var url: URL { core.url }
    /// The schema in use (as stored, with its version).
    public var schema: Schema { core.schema }
    /// The engine below, for tools (statistics, compaction). Writing to entity keyspaces
    /// directly bypasses validation and versioning.
    public var store: LogStore { core.store }
    /// What opening the store found and repaired (a torn tail cut and where its bytes were
    /// kept, damage salvage mode skipped, hint files ignored): the engine's report.
    public var recovery: RecoveryReport { store.recovery }

    /// Opens (creating if needed) the store at `url` for the entities of `types`.
    /// - Parameters:
    ///   - types: the model classes; relationships between them are resolved here.
    ///   - url: the store's directory; `nil` uses ``defaultURL``.
    ///   - options: the engine's options (durability, segment size, read-only…).
    /// - Throws: ``LogbookError/invalidSchema(_:)``, ``LogbookError/incompatibleSchema(entity:attribute:reason:)``,
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)`` (for example
    ///   `LogStoreError.locked(path:)` if another process writes the store).
    public convenience init(
        for types: [any PersistentModel.Type], at url: URL? = nil,
        options: LogStoreOptions = LogStoreOptions()
    ) throws {
        let layouts = try types.map { try ModelLayout.of($0) }
        try self.init(
            core: ContainerCore(
                schema: Schema(try ModelLayout.entities(resolving: layouts)), layouts: layouts,
                url: url, options: options))
    }

    /// Opens (creating if needed) the store at `url` with a schema given by name — for apps and
    /// tools without model classes. With `schema == nil` the store's own schema is used (the
    /// store must have one).
    /// - Throws: as `init(for:at:options:)`; ``LogbookError/invalidSchema(_:)`` if `schema` is
    ///   `nil` and the store holds none.
    public convenience init(
        schema: Schema?, at url: URL? = nil, options: LogStoreOptions = LogStoreOptions()
    ) throws {
        try self.init(core: ContainerCore(schema: schema, layouts: [], url: url, options: options))
    }

    /// A container over `core`, with its main context (a new one, unless `core` still has one).
    init(core: ContainerCore) {
        self.core = core
        main = core.existingMainContext ?? ModelContext.makeMain(of: core)
        core.adopt(facade: self, main: main.unsafelyUnwrapped)
    }

    /// The main actor's context, as in SwiftData: reachable only from the main actor, so code on
    /// another thread or task cannot touch it (make a ``ModelContext`` or a ``ModelActor``
    /// there). Like every context, it keeps the container's store open while it is used. It
    /// autosaves on the main actor (``ModelContext/autosaveEnabled``).
    @MainActor public var mainContext: ModelContext {
        // Invariant: `main` is set in init.
        main.unsafelyUnwrapped
    }

    /// Where stores go when the app names none: `<Application Support>/<process name>.logbook`
    /// (on Linux `~/.local/share/…`, following XDG).
    public static var defaultURL: URL {
        // A look-up of the platform's location, not a file operation: files go through the
        // engine's file-system seam.
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appending(
            path: "\(ProcessInfo.processInfo.processName).logbook", directoryHint: .isDirectory)
    }

    /// Saves what autosaving contexts of the caller's actor have pending (see
    /// ``ModelContext/autosaveEnabled``), then syncs and closes the store; contexts of this
    /// container then fail to save or fetch, and ``changes()`` sequences end.
    /// - Throws: what such an autosave throws (the store then stays open),
    ///   ``LogbookError/store(_:)``.
    public func close() throws {
        try core.autosaves.saveContextsOfCurrentActor()
        core.persistIndexes()
        core.changeHub.finish()
        try wrapStoreErrors { try core.store.close() }
    }
}

extension ModelContainer: CustomStringConvertible, CustomReflectable {
    /// `ModelContainer(<path>, entities: Employee, Company)`.
    public var description: String {
        "ModelContainer(\(url.path), entities: \(schema.entities.map(\.name).joined(separator: ", ")))"
    }

    /// The store's path and schema.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": url, "schema": schema], displayStyle: .class)
    }
}
