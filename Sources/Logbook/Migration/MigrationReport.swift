import Foundation
import LogStore

/// What opening a store through a ``SchemaMigrationPlan`` would do, found without changing a
/// byte of it (``ModelContainer/migrationReport(for:migrationPlan:configurations:)``): the
/// stages that would run, the objects each would insert, change and delete, and what would
/// refuse the migration, and why.
public struct MigrationReport: Sendable, CustomStringConvertible {
    /// One stage that would run.
    public struct Stage: Sendable, Equatable {
        /// `custom 1.0.0 → 2.0.0`.
        public var name: String
        /// Objects the stage's code would insert, change and delete, by entity (a lightweight
        /// stage rewrites no object: all empty).
        public var inserted: [String: Int]
        public var updated: [String: Int]
        public var deleted: [String: Int]

        /// A stage's line of the report.
        public init(
            name: String, inserted: [String: Int], updated: [String: Int], deleted: [String: Int]
        ) {
            self.name = name
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
        }
    }

    /// The version the store is at; `nil` for a store that does not exist or holds no schema yet.
    public var storedVersion: Schema.Version?
    /// The plan's newest version.
    public var newestVersion: Schema.Version
    /// The stages that would run, in order, up to the one refused, if any.
    public var stages: [Stage]
    /// Why the migration would be refused (a stage that throws, a change a lightweight stage
    /// cannot make, duplicates under a new unique constraint, a store newer than the app), or
    /// `nil` if it would succeed.
    public var refusal: LogbookError?

    /// The report as lines of text, as `employees --dry-run` prints it.
    public var description: String {
        var lines = [
            "store at \(storedVersion.map { "version \($0)" } ?? "no version (new)"), newest version \(newestVersion)"
        ]
        if stages.isEmpty && refusal == nil { lines.append("nothing to migrate") }
        for stage in stages {
            var counts: [String] = []
            for (label, table) in [
                ("insert", stage.inserted), ("change", stage.updated), ("delete", stage.deleted),
            ] {
                for (entity, count) in table.sorted(by: { $0.key < $1.key }) {
                    counts.append("\(label) \(count) \(entity)")
                }
            }
            lines.append(
                "stage \(stage.name): "
                    + (counts.isEmpty ? "rewrites no object" : counts.joined(separator: ", ")))
        }
        if let refusal { lines.append("refused: \(refusal.description)") }
        return lines.joined(separator: "\n")
    }
}

extension ModelContainer {
    /// What `init(for:migrationPlan:configurations:)` would do to the store, without changing
    /// a byte of it: the store is opened read-only and the stages run on a copy in memory.
    /// - Throws: ``LogbookError/invalidMigrationPlan(_:)`` for a plan that is wrong whatever the
    ///   store; ``LogbookError/store(_:)`` if the store cannot be read. What would refuse the
    ///   migration is in the report's ``MigrationReport/refusal``, not thrown.
    /// - Complexity: holds a copy of the store in memory, and runs every stage.
    public static func migrationReport(
        for types: [any PersistentModel.Type], migrationPlan: any SchemaMigrationPlan.Type,
        configurations configuration: ModelConfiguration = ModelConfiguration()
    ) throws -> MigrationReport {
        let plan = try PlannedMigration(migrationPlan, types: types)
        var report = MigrationReport(
            storedVersion: nil, newestVersion: plan.newest.identifier, stages: [], refusal: nil)
        var options = ContainerCore.withHistoryRetention(configuration.storeOptions)
        options.readOnly = true
        options.createIfMissing = false
        let url = configuration.url
        guard options.fileSystem.kind(of: url.path) == .directory else { return report }
        let store = try wrapStoreErrors { try LogStore(path: url.path, options: options) }
        defer { try? store.close() }
        guard let stored = try SchemaHistory.read(from: store).current else { return report }
        let marker = try wrapStoreErrors {
            try store.get(Keyspaces.versionIdentifierKey, in: Keyspaces.meta)
        }.map(Keyspaces.versionIdentifier(ofValue:))
        let start: Int
        do {
            start = try plan.position(of: stored, marker: marker)
        } catch let error as LogbookError {
            if case .storeNewerThanModel(let version, _) = error {
                report.storedVersion = Schema.Version(version)
            }
            report.refusal = error
            return report
        }
        report.storedVersion = plan.versions[start].identifier
        let copy = try StoreCopy(
            of: url.path, from: options.fileSystem, options: options, inMemory: true)
        do {
            // The newest schema as a last step: a store matched by lightweight inference.
            if start == plan.versions.count - 1 {
                _ = try ContainerCore(
                    schema: plan.newest.schema, layouts: plan.newest.layouts, url: copy.url,
                    options: copy.options)
            }
            try plan.runStages(from: start, on: copy) { i, saves in
                var stage = MigrationReport.Stage(
                    name: plan.stages[i].name, inserted: [:], updated: [:], deleted: [:])
                for save in saves {
                    for id in save.inserted { stage.inserted[id.entityName, default: 0] += 1 }
                    for id in save.updated { stage.updated[id.entityName, default: 0] += 1 }
                    for id in save.deleted { stage.deleted[id.entityName, default: 0] += 1 }
                }
                report.stages.append(stage)
            }
        } catch let error as LogbookError {
            if report.stages.count < plan.stages.count - start {
                report.stages.append(
                    MigrationReport.Stage(
                        name: plan.stages[start + report.stages.count].name, inserted: [:],
                        updated: [:], deleted: [:]))
            }
            report.refusal = error
        }
        return report
    }
}
