/// Every keyspace and key the object layer writes through LogStore, and the object key of a
/// primary key (FORMAT.md Part 2, "Keyspaces"). The one place these names and key layouts are
/// written: the rest of Logbook, the tools and the employees app go through here or through
/// ``PersistentIdentifier/storeKey``.
package enum Keyspaces {
    /// Entity names may not start with this, so an entity's keyspace never meets the ones below.
    static let reservedPrefix = "logbook."

    /// Schema records, one per schema version (``schemaKey(version:)``).
    package static let schema = "logbook.schema"
    /// The store's counters, identity and history settings.
    package static let meta = "logbook.meta"
    /// The save record of the newest save, under ``saveKey``.
    package static let history = "logbook.history"

    // MARK: Objects

    /// The key of the object with primary key `pk` in its entity's keyspace: 8 bytes,
    /// big-endian, so that byte order is number order.
    @inline(__always)
    static func objectKey(_ pk: UInt64) -> [UInt8] { withObjectKey(pk) { Array($0) } }

    /// Calls `body` with ``objectKey(_:)`` of `pk`, without building an array.
    @inline(__always)
    static func withObjectKey<R>(
        _ pk: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try withUnsafeBytes(of: pk.bigEndian, body)
    }

    /// The primary key an object key holds, or `nil` if `key` is not 8 bytes.
    @inline(__always)
    static func primaryKey(ofObjectKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == 8 else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }

    // MARK: logbook.schema

    /// The key of the schema record of `version`: 4 bytes, big-endian.
    static func schemaKey(version: UInt32) -> [UInt8] {
        withUnsafeBytes(of: version.bigEndian) { Array($0) }
    }

    /// The version a schema record's key names, or `nil` if `key` is not 4 bytes.
    static func schemaVersion(ofKey key: UnsafeRawBufferPointer) -> UInt32? {
        guard key.count == 4 else { return nil }
        return UInt32(bigEndian: key.loadUnaligned(as: UInt32.self))
    }

    // MARK: logbook.meta

    /// The key of `entity`'s counter: its value is the last primary key handed out, a `u64`
    /// big-endian (``objectKey(_:)``'s bytes).
    static func counterKey(_ entity: String) -> [UInt8] { Array("lastID:\(entity)".utf8) }
    /// The store's identity: 16 bytes, a UUID in RFC 4122 byte order.
    static let storeIdentifierKey: [UInt8] = Array("storeIdentifier".utf8)
    /// The sequence number after which every save has a save record: a `u64` big-endian.
    static let historySinceKey: [UInt8] = Array("historySince".utf8)
    /// The history retention policy (``HistoryRetention``'s encoding).
    static let historyRetentionKey: [UInt8] = Array("historyRetention".utf8)

    /// The key of the renames recorded with schema `version` (``FieldRename``): `renames:`
    /// then the version's 4 bytes, big-endian.
    static func renamesKey(version: UInt32) -> [UInt8] {
        Array("renames:".utf8) + schemaKey(version: version)
    }
    /// The ``Schema/Version`` of the app's ``VersionedSchema`` the store is at: its text
    /// (`1.0.0`), written by containers opened with a migration plan.
    static let versionIdentifierKey: [UInt8] = Array("versionIdentifier".utf8)

    // MARK: logbook.history

    /// The key of the newest save's record (``SaveRecord``).
    static let saveKey: [UInt8] = Array("save".utf8)
}
