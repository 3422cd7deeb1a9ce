import Foundation
import LogStore

extension ModelContainer {
    /// Opens (creating if needed) a store for the model classes `types`, migrating it through
    /// `migrationPlan` from the version it is at: SwiftData's
    /// `ModelContainer(for:migrationPlan:configurations:)`.
    ///
    /// A new store starts at the plan's newest version. A store at an older version runs the
    /// stages from it to the newest, all or nothing: lightweight stages write only the new
    /// schema (records are read through it as they are, and rewritten in the newest version by
    /// compaction); a chain with a custom stage runs on a copy of the store in memory and
    /// reaches the store in one commit, so a crash leaves it at the old version or the new one,
    /// and a stage that throws leaves it byte for byte as it was. The store records the
    /// version it is at (FORMAT.md Part 2, "Versions"); a store without that record (written
    /// without a plan) is at the newest version whose schema it holds. After a custom
    /// migration, the store's recorded history starts over: ``history(after:)`` of a token
    /// from before it throws ``LogbookError/historyUnavailable(requested:oldest:)``.
    /// - Parameters:
    ///   - types: the model classes: those of the plan's newest version.
    ///   - migrationPlan: the versions and stages; `nil` opens as ``init(for:configuration:)``.
    ///   - configuration: where and how the store is kept.
    /// - Throws: ``LogbookError/invalidMigrationPlan(_:)``,
    ///   ``LogbookError/storeNewerThanModel(stored:newest:)`` (nothing is written; with
    ///   ``ModelConfiguration/allowsSave`` `false` the store opens read-only, under its own
    ///   schema, its objects reached by entity name),
    ///   ``LogbookError/migrationStageFailed(stage:reason:)``,
    ///   ``LogbookError/incompatibleSchema(entity:attribute:reason:)`` for a lightweight stage
    ///   that cannot be inferred, and what `init(for:at:options:)` throws.
    /// - Complexity: a custom migration runs on a copy of the store's files beside it
    ///   (`<store>.migrating`, as large as the store, removed when it ends) and applies it in
    ///   one streamed commit; its memory is an open's (the key directory) plus what the stages'
    ///   own code holds, not the store's size.
    public convenience init(
        for types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)?,
        configurations configuration: ModelConfiguration = ModelConfiguration()
    ) throws {
        guard let migrationPlan else {
            try self.init(for: types, configuration: configuration)
            return
        }
        let plan = try PlannedMigration(migrationPlan, types: types)
        self.init(core: try Self.migrate(plan, configuration: configuration))
    }

    /// Opens a store for the model classes `types`, listed one by one, through `migrationPlan`.
    /// - Throws: as `init(for:migrationPlan:configurations:)`.
    public convenience init(
        for types: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)?,
        configurations configuration: ModelConfiguration = ModelConfiguration()
    ) throws {
        try self.init(for: types, migrationPlan: migrationPlan, configurations: configuration)
    }

    /// Brings the store to the plan's newest version and opens it: the container's own open
    /// settles a store that is new, at the newest version, or lightweight stages from it;
    /// stages with custom code run first, on a copy, and reach the store in one commit.
    private static func migrate(_ plan: PlannedMigration, configuration: ModelConfiguration)
        throws -> ContainerCore
    {
        let url = configuration.url
        let options = ContainerCore.withHistoryRetention(configuration.storeOptions)
        let newest = plan.newest
        func open() throws -> ContainerCore {
            try ContainerCore(
                schema: newest.schema, layouts: newest.layouts, url: url, options: options,
                plan: plan, indexBuildProgress: configuration.indexBuildProgress)
        }
        do {
            return try open()
        } catch LogbookError.storeNewerThanModel where options.readOnly {
            // A newer store, read-only: its own schema, its objects by entity name (the app's
            // classes are of an older model).
            return try ContainerCore(schema: nil, layouts: [], url: url, options: options)
        } catch let needed as CustomStagesNeeded {
            let store = try wrapStoreErrors { try LogStore(path: url.path, options: options) }
            defer { try? store.close() }
            let end = try wrapStoreErrors { (try store.endOfLog(), store.lastSequence) }
            let copy = try StoreCopy(of: url.path, from: options.fileSystem, options: options)
            defer { copy.remove() }
            try plan.runStages(from: needed.start, on: copy)
            _ = try copy.apply(to: store, copiedAt: end)
            try wrapStoreErrors { try store.close() }
            return try open()
        }
    }
}

/// Thrown by a container's open when the stages from the store's version include custom code,
/// which runs on a copy of the store before the container opens it (see
/// `ModelContainer(for:migrationPlan:configurations:)`).
struct CustomStagesNeeded: Error {
    /// The position of the store's version in the plan.
    var start: Int
}
