extension Schema {
    /// A version of an app's model, as SwiftData numbers them: `Schema.Version(2, 1, 0)`.
    /// Versions order by major, then minor, then patch.
    public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public var patch: Int

        /// The version `major.minor.patch`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// The version `text` spells (`1.2.0`), or `nil`.
        init?(_ text: String) {
            let parts = text.split(separator: ".").map { Int($0) }
            guard parts.count == 3, let major = parts[0], let minor = parts[1],
                let patch = parts[2]
            else { return nil }
            self.init(major, minor, patch)
        }

        /// `1.2.0`.
        public var description: String { "\(major).\(minor).\(patch)" }

        public static func < (a: Version, b: Version) -> Bool {
            (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
        }
    }
}

/// One version of an app's model: SwiftData's `VersionedSchema`.
///
/// ```swift
/// enum ModelV2: VersionedSchema {
///     static let versionIdentifier = Schema.Version(2, 0, 0)
///     static var models: [any PersistentModel.Type] { [Employee.self] }
///     final class Employee: PersistentModel { … }
/// }
/// ```
/// List the versions, oldest first, in a ``SchemaMigrationPlan``.
public protocol VersionedSchema {
    /// The version; distinct among the plan's versions.
    static var versionIdentifier: Schema.Version { get }
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// How a store moves from each version of an app's model to the next: SwiftData's
/// `SchemaMigrationPlan`. Open the store with
/// `ModelContainer(for:migrationPlan:configurations:)`.
///
/// Every version in ``schemas`` but the last needs one stage to the next version: a
/// ``MigrationStage/lightweight(fromVersion:toVersion:)`` one for changes Logbook infers (see
/// ``ModelContainer``), a ``MigrationStage/custom(fromVersion:toVersion:willMigrate:didMigrate:)``
/// one to transform, split, merge, delete or insert objects. A migration is all or nothing:
/// if any stage throws, the store is left exactly as it was. Migrations in one process run
/// one at a time, so a custom stage may hand values from its `willMigrate` (which reads the old
/// model) to its `didMigrate` (which writes the new one) through a static of the plan.
public protocol SchemaMigrationPlan {
    /// The versions, oldest first; the last is the one the app's model classes are.
    static var schemas: [any VersionedSchema.Type] { get }
    /// One stage from each version to the next.
    static var stages: [MigrationStage] { get }
}

/// A step of a ``SchemaMigrationPlan``, from one version of the model to the next.
///
/// A value of metatypes and `@Sendable` closures, so `Sendable`.
public enum MigrationStage: @unchecked Sendable {
    /// Changes Logbook makes without rewriting a record: added, removed and renamed
    /// (`originalName`) attributes, relationships and entities, widened numbers, attributes made
    /// optional, or required with a default, new indexes and unique constraints.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A lightweight migration with code around it. `willMigrate` gets a context on the old
    /// version's model (typed objects of its classes, or dynamic ones by entity name), before the
    /// schema changes; `didMigrate` one on the new version's, after. What they change is saved
    /// when they return (they may also save themselves). If either throws, nothing of the
    /// migration reaches the store, and the container's init throws
    /// ``LogbookError/migrationStageFailed(stage:reason:)``.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?,
        didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): return from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): return to
        }
    }

    /// `lightweight 1.0.0 → 2.0.0`.
    var name: String {
        let kind: String
        switch self {
        case .lightweight: kind = "lightweight"
        case .custom: kind = "custom"
        }
        return "\(kind) \(arrow)"
    }
}
