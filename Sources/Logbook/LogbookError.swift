/// Everything that can go wrong in the object layer, with what a person needs to act on it.
///
/// Callers match on the case; ``description`` says what happened and what to do next. Errors of
/// the engine below arrive wrapped in ``store(_:)``.
public enum LogbookError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No entity of that name in the schema.
    case unknownEntity(String)
    /// An identifier of one entity was used where another was expected (``ModelContext/model(for:as:)``
    /// with an identifier of another class).
    case entityMismatch(expected: String, found: String)
    /// The entity has no attribute of that name.
    case unknownAttribute(entity: String, attribute: String)
    /// A value of the wrong type for an attribute; `expected` and `found` name the types.
    case typeMismatch(entity: String, attribute: String, expected: String, found: String)
    /// A non-optional attribute without a value at save. `object` is the identifier's string form.
    case missingValue(entity: String, attribute: String, object: String)
    /// Two objects share the value of a unique attribute (or, for a compound constraint, the
    /// values of its attributes: `attribute` is then `(a, b)` and `value` `("x", 1)`): `object`
    /// is the one being saved, `existing` the one that has the value already (stored, or
    /// earlier in the same save).
    case uniqueConstraint(
        entity: String, attribute: String, value: String, object: String, existing: String)
    /// A deleted object's relationship with the `.deny` rule still reaches an object.
    case deleteDenied(entity: String, relationship: String, object: String)
    /// The object was saved by another context since this one read it (merge policy `.error`).
    case conflict(entity: String, object: String, expectedVersion: UInt64, foundVersion: UInt64)
    /// The stored schema cannot be migrated to the requested one without losing data.
    case incompatibleSchema(entity: String, attribute: String?, reason: String)
    /// The schema definition itself is invalid (duplicate names, reserved prefix, no attributes).
    case invalidSchema(String)
    /// A model class has an `@Attribute` property of a type Logbook cannot store (a class, a
    /// dictionary, a function…): refused when the container is created. `type` is the
    /// property's Swift type, `reason` why it cannot be stored.
    case unstorableAttribute(entity: String, attribute: String, type: String, reason: String)
    /// A stored record or schema does not decode: it is damaged or from a newer library.
    case corruptRecord(entity: String, key: String, reason: String)
    /// A string predicate does not parse; `line` and `column` (1-based) point at the problem.
    case predicateSyntax(message: String, line: Int, column: Int)
    /// A predicate is well-formed but cannot be evaluated: a key path that is not an attribute,
    /// an operator that does not apply to the values' types. (A missing `%@` argument is a
    /// ``predicateSyntax(message:line:column:)``.)
    case unsupportedPredicate(String)
    /// The object does not belong to this context (never inserted, or registered elsewhere).
    case notRegistered(entity: String, object: String)
    /// No object with that identifier exists in the store or the context.
    case objectNotFound(String)
    /// A string does not have the `Entity/number` form of a ``PersistentIdentifier``.
    case invalidIdentifier(String)
    /// Values given by position do not match the entity's attributes one for one.
    case valueCount(entity: String, expected: Int, found: Int)
    /// The saves after `requested` are no longer in the store: its history retention let
    /// compaction drop them. `oldest` is the oldest token it still has history after.
    case historyUnavailable(requested: HistoryToken, oldest: HistoryToken)
    /// A history token this store cannot take: from another store, or ahead of its last commit.
    case invalidHistoryToken(String, reason: String)
    /// The store holds no history (no Logbook that records it has opened it for writing yet).
    case historyNotRecorded(path: String)
    /// A context that shows a past state (``ModelContainer/context(asOf:)``) cannot save.
    case pastStateIsReadOnly(token: HistoryToken)
    /// A ``SchemaMigrationPlan`` cannot migrate the store: it skips a version, leaves a step
    /// without a stage, does not end at the model the container is opened for, or does not
    /// know the version the store is at. The text says which.
    case invalidMigrationPlan(String)
    /// The store is at a version of the model (`stored`) newer than the newest one the app's
    /// migration plan knows (`newest`): it was written by a newer version of the app. It is not
    /// opened for writing; open it read-only (``ModelConfiguration/allowsSave`` `false`).
    case storeNewerThanModel(stored: String, newest: String)
    /// A custom migration stage threw: nothing of the migration is in the store. `stage` names
    /// it (`custom 1.0.0 → 2.0.0, willMigrate`), `reason` is what it threw, in words.
    case migrationStageFailed(stage: String, reason: String)
    /// A sum does not fit its type (an aggregate never wraps around or rounds): an integer sum
    /// past 64 bits (`UInt64`'s range for `UInt64`), a `Decimal` sum past its 38 digits, or a
    /// typed sum past the attribute's own type; `attribute` is the one summed.
    case aggregateOverflow(entity: String, attribute: String)
    /// The entity has no searchable attribute, so it cannot be searched.
    case notSearchable(entity: String)
    /// An aggregate or a search asks for something it cannot do (a sum of text, a group key
    /// that is not an attribute, a sort by a value it does not compute); the reason says what.
    case invalidQuery(String)
    /// The engine failed; the wrapped error says how.
    case store(LogStoreError)
    /// Talking to PostgreSQL failed; the wrapped error says how (and carries the SQLSTATE of an
    /// error the server reported).
    case postgreSQL(PostgreSQLError)
    /// Syncing with PostgreSQL cannot go on; the wrapped error says why and what to do.
    case sync(SyncError)

    public var description: String {
        switch self {
        case .unknownEntity(let name):
            return
                "no entity named \"\(name)\" in the schema; check the spelling or add it to the schema."
        case .entityMismatch(let expected, let found):
            return
                "the identifier names a \(found) object, where a \(expected) was expected; ask for the identifier's own model type."
        case .unknownAttribute(let entity, let attribute):
            return
                "\(entity) has no attribute \"\(attribute)\"; check the key or add the attribute to the schema."
        case .typeMismatch(let entity, let attribute, let expected, let found):
            return
                "\(entity).\(attribute) holds \(expected), not \(found); convert the value before setting it."
        case .missingValue(let entity, let attribute, let object):
            return
                "\(entity).\(attribute) of \(object) is required but has no value; set it before saving, or make the attribute optional."
        case .uniqueConstraint(let entity, let attribute, let value, let object, let existing):
            return
                "\(entity).\(attribute) must be unique, but \(object) repeats the value \(value) of \(existing); change one of them before saving, or make the entity's unique policy upsert."
        case .deleteDenied(let entity, let relationship, let object):
            return
                "\(entity) \(object) cannot be deleted while \(entity).\(relationship) still reaches objects (delete rule deny); delete or reassign them first."
        case .conflict(let entity, let object, let expected, let found):
            return
                "\(entity) \(object) was saved elsewhere (version \(found), this context read \(expected)); refetch it, or set a merge policy on the context."
        case .incompatibleSchema(let entity, let attribute, let reason):
            let what = attribute.map { "\(entity).\($0)" } ?? entity
            return
                "the stored schema cannot become the new one at \(what): \(reason). Lightweight migration adds, removes and renames (originalName) attributes, relationships and entities, widens numbers, and makes attributes optional, or required with a default; anything else needs a custom stage in a SchemaMigrationPlan."
        case .invalidSchema(let reason):
            return "invalid schema: \(reason)."
        case .unstorableAttribute(let entity, let attribute, let type, let reason):
            return
                "\(entity).\(attribute) is a \(type), which cannot be stored: \(reason). Change its type, or mark it @Transient to keep it out of the store."
        case .corruptRecord(let entity, let key, let reason):
            return
                "the stored record \(entity)/\(key) does not decode: \(reason). Run `logbook verify`; the store may be damaged or written by a newer Logbook."
        case .predicateSyntax(let message, let line, let column):
            return "predicate syntax error at line \(line), column \(column): \(message)."
        case .unsupportedPredicate(let reason):
            return "cannot evaluate the predicate: \(reason)."
        case .notRegistered(let entity, let object):
            return
                "\(entity) \(object) is not registered in this context; insert it or fetch it here first."
        case .objectNotFound(let id):
            return "no object \(id) in the store; it may have been deleted."
        case .invalidIdentifier(let text):
            return "\"\(text)\" is not an object identifier; expected the form Entity/42."
        case .valueCount(let entity, let expected, let found):
            return "\(entity) has \(expected) attributes, but \(found) values were given."
        case .historyUnavailable(let requested, let oldest):
            return
                "the history after \(requested) is no longer in the store: its retention let compaction drop it. The oldest token still available is \(oldest); keep more with a longer history retention."
        case .invalidHistoryToken(let token, let reason):
            return "the history token \"\(token)\" does not fit this store: \(reason)."
        case .historyNotRecorded(let path):
            return
                "the store at \(path) has no recorded history yet: it was written by a Logbook that did not record it. Open it for writing once to start its history."
        case .pastStateIsReadOnly(let token):
            return
                "this context shows the store as of \(token), so it cannot save; make changes in a context of the container."
        case .invalidMigrationPlan(let reason):
            return "the migration plan cannot migrate this store: \(reason)."
        case .storeNewerThanModel(let stored, let newest):
            return
                "the store is at version \(stored) of the model, newer than this app's newest, \(newest): it was written by a newer version of the app. It is not opened for writing; open it read-only, or update the app."
        case .migrationStageFailed(let stage, let reason):
            return
                "the migration stage \(stage) failed, so the store was left as it was: \(reason)."
        case .aggregateOverflow(let entity, let attribute):
            return
                "the sum of \(entity).\(attribute) does not fit its type (a 64-bit integer, or a Decimal's 38 digits); sum fewer objects, or read the sum as a wider type."
        case .notSearchable(let entity):
            return
                "\(entity) has no searchable attribute; mark its String attributes @Attribute(.searchable) (or list them in `indexes` as .searchable) to search it."
        case .invalidQuery(let reason):
            return "the query cannot run: \(reason)."
        case .store(let error):
            return error.description
        case .postgreSQL(let error):
            return error.description
        case .sync(let error):
            return error.description
        }
    }
}
