import LogStore

/// A ``SchemaMigrationPlan``, checked: its versions with their schemas, and the stage from each
/// to the next.
struct PlannedMigration {
    struct Version {
        let type: any VersionedSchema.Type
        let layouts: [ModelLayout]
        let schema: Schema
        var identifier: Schema.Version { type.versionIdentifier }
    }

    let versions: [Version]
    /// `stages[i]` goes from `versions[i]` to `versions[i + 1]`.
    let stages: [MigrationStage]
    var newest: Version { versions[versions.count - 1] }

    /// - Throws: ``LogbookError/invalidMigrationPlan(_:)`` for a plan that lists no versions or
    ///   one twice, a stage that skips a version, goes backwards or names a version not listed,
    ///   two stages from one version, a version without a stage to the next, or a newest version
    ///   whose classes are not `types`; what ``ModelLayout`` throws for a version's classes.
    init(_ plan: any SchemaMigrationPlan.Type, types: [any PersistentModel.Type]) throws {
        let listed = plan.schemas
        guard !listed.isEmpty else {
            throw LogbookError.invalidMigrationPlan("its `schemas` list no version")
        }
        var positions: [Schema.Version: Int] = [:]
        for (i, version) in listed.enumerated() {
            guard positions.updateValue(i, forKey: version.versionIdentifier) == nil else {
                throw LogbookError.invalidMigrationPlan(
                    "its `schemas` list the version \(version.versionIdentifier) twice")
            }
        }
        let newest = listed[listed.count - 1]
        guard Set(types.map(ObjectIdentifier.init)) == Set(newest.models.map(ObjectIdentifier.init))
        else {
            throw LogbookError.invalidMigrationPlan(
                "the container's model classes are not those of the plan's newest version, \(newest.versionIdentifier)"
            )
        }
        var stages = [MigrationStage?](repeating: nil, count: listed.count - 1)
        for stage in plan.stages {
            guard let from = positions[stage.fromVersion.versionIdentifier],
                let to = positions[stage.toVersion.versionIdentifier]
            else {
                throw LogbookError.invalidMigrationPlan(
                    "the stage \(stage.arrow) names a version that `schemas` do not list")
            }
            guard to == from + 1 else {
                let skipped =
                    to > from + 1
                    ? "skips "
                        + listed[(from + 1)..<to].map { "\($0.versionIdentifier)" }
                        .joined(separator: ", ")
                    : "goes backwards"
                throw LogbookError.invalidMigrationPlan(
                    "the stage \(stage.arrow) \(skipped): a stage goes from one version of `schemas` to the next"
                )
            }
            guard stages[from] == nil else {
                throw LogbookError.invalidMigrationPlan(
                    "two stages migrate \(stage.arrow)")
            }
            stages[from] = stage
        }
        for (i, stage) in stages.enumerated() where stage == nil {
            throw LogbookError.invalidMigrationPlan(
                "no stage migrates \(listed[i].versionIdentifier) to \(listed[i + 1].versionIdentifier): every version of `schemas` needs a stage to the next"
            )
        }
        versions = try listed.map { type in
            let layouts = try type.models.map { try ModelLayout.of($0) }
            return Version(
                type: type, layouts: layouts,
                schema: Schema(try ModelLayout.entities(resolving: layouts)))
        }
        self.stages = stages.compactMap { $0 }
    }

    /// The position in ``versions`` of the version a store is at: the one its marker names, or
    /// for a store without one (written without a plan), the newest whose schema is the
    /// stored one, else the newest if a lightweight migration reaches it.
    /// - Throws: ``LogbookError/storeNewerThanModel(stored:newest:)`` for a marker newer than the
    ///   newest version; ``LogbookError/invalidMigrationPlan(_:)`` for one the plan does not list,
    ///   or a stored schema that is none of the plan's versions.
    func position(of stored: Schema, marker: String?) throws -> Int {
        if let text = marker {
            if let i = versions.firstIndex(where: { "\($0.identifier)" == text }) { return i }
            if let version = Schema.Version(text), version > newest.identifier {
                throw LogbookError.storeNewerThanModel(
                    stored: text, newest: "\(newest.identifier)")
            }
            throw LogbookError.invalidMigrationPlan(
                "the store is at version \(text), which its `schemas` do not list")
        }
        for i in versions.indices.reversed() {
            if let (migrated, renames) = try? stored.migrated(to: versions[i].schema),
                renames.isEmpty, migrated.fingerprint == stored.fingerprint
            {
                return i
            }
        }
        // Written without a plan by other means (a tool's import, an earlier release): at the
        // newest version if it gets there by a lightweight migration, as without a plan.
        // Not if that would drop a field: the store may be of a newer model than the plan knows.
        guard let (migrated, renames) = try? stored.migrated(to: newest.schema),
            stored.entities.allSatisfy({ entity in
                let kept = migrated.entity(named: entity.name)?.storedFields
                return entity.storedFields.attributes.allSatisfy { field in
                    kept?.attributeIndex(field.name) != nil
                        || renames.contains { $0.entity == entity.name && $0.from == field.name }
                }
            })
        else {
            throw LogbookError.invalidMigrationPlan(
                "the store's schema is none of its versions (it records no version, its entities and attributes match none, and a lightweight migration to the newest would drop fields: it may be of a newer model)"
            )
        }
        return versions.count - 1
    }
}

extension MigrationStage {
    /// `1.0.0 → 2.0.0`.
    var arrow: String { "\(fromVersion.versionIdentifier) → \(toVersion.versionIdentifier)" }

    var isCustom: Bool {
        if case .custom = self { return true }
        return false
    }
}
