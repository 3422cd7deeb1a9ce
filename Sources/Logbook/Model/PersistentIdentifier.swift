/// The permanent identity of a stored object: its entity and primary key.
///
/// Assigned at ``ModelContext/insert(_:)`` (not at save) from a per-entity counter kept in the
/// store, never reused. Store it (string form `Employee/42`, or `Codable` as that string) and
/// get the object back later, in any context or process, with ``ModelContext/model(for:)``.
public struct PersistentIdentifier: Sendable, Hashable, Comparable, Codable,
    LosslessStringConvertible
{
    /// The entity's name.
    public let entityName: String
    /// The primary key within the entity, from 1; 0 in a temporary identifier.
    public let primaryKey: UInt64
    /// Tells apart the temporary identifiers of different objects; 0 in a permanent one.
    let temporaryToken: UInt64

    /// The identifier of object `primaryKey` of `entityName`.
    public init(entityName: String, primaryKey: UInt64) {
        self.entityName = entityName
        self.primaryKey = primaryKey
        self.temporaryToken = 0
    }

    /// The temporary identifier of `object`, which no context holds yet.
    init(temporaryFor object: AnyObject, entityName: String) {
        self.entityName = entityName
        self.primaryKey = 0
        self.temporaryToken = UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue))
    }

    /// Whether this identifies an object not yet inserted into a context. It changes to a
    /// permanent identifier when the object is inserted, and names no stored object: no context
    /// finds a model for it, and it cannot be encoded.
    public var isTemporary: Bool { temporaryToken != 0 }

    /// Parses the `Entity/42` form; `nil` if `description` does not have it.
    public init?(_ description: String) {
        guard let slash = description.lastIndex(of: "/"),
            let key = UInt64(description[description.index(after: slash)...])
        else { return nil }
        let name = String(description[..<slash])
        guard !name.isEmpty else { return nil }
        self.init(entityName: name, primaryKey: key)
    }

    /// `Entity/42`; a temporary identifier is `Entity/temporary-` and a token.
    public var description: String {
        isTemporary
            ? "\(entityName)/temporary-\(String(temporaryToken, radix: 16))"
            : "\(entityName)/\(primaryKey)"
    }

    /// The key of the object's record in its entity's keyspace (FORMAT.md Part 2, "Keyspaces"),
    /// for tools that read the store through `LogStore`.
    public var storeKey: [UInt8] { Keyspaces.objectKey(primaryKey) }

    /// The identifier of the record stored under `storeKey` in `entityName`'s keyspace, or
    /// `nil` if `storeKey` is not an object key.
    public init?(entityName: String, storeKey: UnsafeRawBufferPointer) {
        guard let pk = Keyspaces.primaryKey(ofObjectKey: storeKey) else { return nil }
        self.init(entityName: entityName, primaryKey: pk)
    }

    /// Orders by entity name, then primary key (temporary identifiers first).
    public static func < (a: Self, b: Self) -> Bool {
        (a.entityName, a.primaryKey, a.temporaryToken) < (
            b.entityName, b.primaryKey, b.temporaryToken
        )
    }

    /// Decodes the string form.
    /// - Throws: `DecodingError.dataCorrupted` if the string is not `Entity/number`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = PersistentIdentifier(text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: LogbookError.invalidIdentifier(text).description))
        }
        self = id
    }

    /// Encodes the string form.
    /// - Throws: `EncodingError.invalidValue` for a temporary identifier, which names nothing
    ///   a later run could find.
    public func encode(to encoder: any Encoder) throws {
        guard !isTemporary else {
            throw EncodingError.invalidValue(
                self,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "\(description) is temporary: insert the object first"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
