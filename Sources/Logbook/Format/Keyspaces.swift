import Foundation

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
    /// A replica's records (``SyncRecords``), only in a store that syncs with PostgreSQL.
    static let sync = "logbook.sync"

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
    package static func schemaVersion(ofKey key: UnsafeRawBufferPointer) -> UInt32? {
        guard key.count == 4 else { return nil }
        return UInt32(bigEndian: key.loadUnaligned(as: UInt32.self))
    }

    /// ``schemaVersion(ofKey:)`` of the bytes of `key`.
    package static func schemaVersion(ofKey key: [UInt8]) -> UInt32? {
        key.withUnsafeBytes { schemaVersion(ofKey: $0) }
    }

    // MARK: logbook.meta

    /// The key of `entity`'s counter: its value is the last primary key handed out, a `u64`
    /// big-endian (``objectKey(_:)``'s bytes).
    static func counterKey(_ entity: String) -> [UInt8] { Array("lastID:\(entity)".utf8) }
    /// The store's identity: 16 bytes, a UUID in RFC 4122 byte order
    /// (``storeIdentifierValue(_:)``).
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
    /// (`1.0.0`, ``versionIdentifierValue(_:)``), written by containers opened with a migration
    /// plan.
    static let versionIdentifierKey: [UInt8] = Array("versionIdentifier".utf8)

    /// The value of a counter (``counterKey(_:)``) or of ``historySinceKey``: `number`, a `u64`
    /// big-endian (``objectKey(_:)``'s bytes).
    @inline(__always)
    static func numberValue(_ number: UInt64) -> [UInt8] { objectKey(number) }

    /// The number a ``numberValue(_:)`` holds, or `nil` if `value` is not 8 bytes.
    static func number(ofValue value: [UInt8]) -> UInt64? {
        value.withUnsafeBytes { primaryKey(ofObjectKey: $0) }
    }

    /// The value of ``storeIdentifierKey`` (and the identity a backup's manifest holds): the
    /// UUID's 16 bytes in RFC 4122 byte order.
    static func storeIdentifierValue(_ identifier: UUID) -> [UInt8] {
        withUnsafeBytes(of: identifier.uuid) { Array($0) }
    }

    /// The UUID a ``storeIdentifierValue(_:)`` holds, or `nil` if `value` is not 16 bytes.
    static func storeIdentifier(ofValue value: [UInt8]) -> UUID? {
        guard value.count == 16 else { return nil }
        return value.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// The value of ``versionIdentifierKey``: the version's text, UTF-8.
    static func versionIdentifierValue(_ version: String) -> [UInt8] { Array(version.utf8) }

    /// The text a ``versionIdentifierValue(_:)`` holds (bytes that are not UTF-8 repaired).
    static func versionIdentifier(ofValue value: [UInt8]) -> String {
        String(decoding: value, as: UTF8.self)
    }

    // MARK: logbook.history

    /// The key of the newest save's record (``SaveRecord``).
    static let saveKey: [UInt8] = Array("save".utf8)
}
