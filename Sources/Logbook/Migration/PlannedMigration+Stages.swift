import Foundation
import LogStore
import Synchronization

extension PlannedMigration {
    /// Held while a chain of stages runs: migrations in one process run one at a time, so a
    /// stage may hand values from its `willMigrate` to its `didMigrate` through a static.
    private static let oneAtATime = Mutex<Void>(())

    /// Runs the stages from version `start` on `copy`, each as containers of the copy: the old
    /// version's for `willMigrate`, the new one's (opening it makes the lightweight migration)
    /// for `didMigrate`. `observe` gets each stage's position and the saves it made.
    /// - Throws: ``LogbookError/migrationStageFailed(stage:reason:)`` for what a stage's code
    ///   or its save throws; what opening a version throws
    ///   (``LogbookError/incompatibleSchema(entity:attribute:reason:)``,
    ///   ``LogbookError/uniqueConstraint(entity:attribute:value:object:existing:)``…), as it is.
    func runStages(
        from start: Int, on copy: StoreCopy,
        observe: ((Int, [HistoryTransaction]) throws -> Void)? = nil
    ) throws {
        let collect = observe != nil
        try Self.oneAtATime.withLock { _ in
            try runStages(from: start, on: copy, collect: collect, observe: observe)
        }
    }

    private func runStages(
        from start: Int, on copy: StoreCopy, collect: Bool,
        observe: ((Int, [HistoryTransaction]) throws -> Void)?
    ) throws {
        for i in start..<stages.count {
            let stage = stages[i]
            var will: (@Sendable (ModelContext) throws -> Void)?
            var did: (@Sendable (ModelContext) throws -> Void)?
            if case .custom(_, _, let w, let d) = stage { (will, did) = (w, d) }
            var saves: [HistoryTransaction] = []
            if let will {
                let old = versions[i]
                saves += try Self.run(will, named: "\(stage.name), willMigrate", collect: collect) {
                    try ContainerCore(
                        schema: old.schema, layouts: old.layouts, url: copy.url,
                        options: copy.options)
                }
            }
            let new = versions[i + 1]
            saves += try Self.run(did, named: "\(stage.name), didMigrate", collect: collect) {
                try ContainerCore(
                    schema: new.schema, layouts: new.layouts, url: copy.url, options: copy.options,
                    versionIdentifier: "\(new.identifier)")
            }
            try observe?(i, saves)
        }
    }

    /// Opens a container on the copy, runs `body` (if any) with a context of it, saves what the
    /// context has pending and closes the container. Returns the saves `body` made, if
    /// `collect`.
    /// - Throws: ``LogbookError/migrationStageFailed(stage:reason:)`` for what `body` or the
    ///   save throws; what opening throws, as it is.
    private static func run(
        _ body: (@Sendable (ModelContext) throws -> Void)?, named name: String, collect: Bool,
        opening: () throws -> ContainerCore
    ) throws -> [HistoryTransaction] {
        let container = ModelContainer(core: try opening())
        defer { try? container.close() }
        guard let body else { return [] }
        let before = collect ? try HistoryToken.current(of: container.store) : nil
        let context = ModelContext(container)
        do {
            try body(context)
            if context.hasChanges { try context.save() }
        } catch {
            throw LogbookError.migrationStageFailed(stage: name, reason: "\(error)")
        }
        return collect ? try container.history(after: before) : []
    }
}
