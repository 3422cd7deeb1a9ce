import Foundation
import LogStore

/// The records a replica keeps in its store, in keyspace `logbook.sync` (FORMAT.md Part 2,
/// "Sync"). Every commit that puts a key of this keyspace was written by the replica itself
/// (a change from PostgreSQL, or its bookkeeping), never by the app, and is never sent back up.
enum SyncRecords {
    static let keyspace = Keyspaces.sync
    /// Which database the store is a replica of, and its origin number there.
    static let replicaKey: [UInt8] = Array("replica".utf8)
    /// How far the store has applied PostgreSQL's change log.
    static let downKey: [UInt8] = Array("down".utf8)
    /// A piece of a first download that is not finished (its last piece puts ``downKey``).
    static let snapshotKey: [UInt8] = Array("snapshot".utf8)
    static let format: UInt8 = 1

    /// `replica := format: u8 = 1, database: [16]u8 (UUID), origin: varint`.
    struct Replica: Equatable {
        var database: UUID
        var origin: Int32

        var encoded: [UInt8] {
            var w = ByteWriter(capacity: 24)
            w.bytes.append(SyncRecords.format)
            withUnsafeBytes(of: database.uuid) { w.bytes.append(contentsOf: $0) }
            w.varint(UInt64(origin))
            return w.bytes
        }

        /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
        init(decoding bytes: UnsafeRawBufferPointer) throws {
            var r = ByteReader(bytes)
            do {
                try SyncRecords.checkFormat(try r.byte(), key: "replica")
                guard bytes.count - r.offset >= 16 else { throw ByteReader.Truncated() }
                database = UUID(
                    uuid: bytes.loadUnaligned(fromByteOffset: r.offset, as: uuid_t.self))
                r.offset += 16
                let origin = try r.varint()
                guard origin > 0, origin <= UInt64(Int32.max), r.isAtEnd else {
                    throw SyncRecords.damaged(
                        "replica", "an origin of \(origin), or bytes after it")
                }
                self.origin = Int32(origin)
            } catch is ByteReader.Truncated {
                throw SyncRecords.damaged("replica", "the record ends early")
            }
        }

        init(database: UUID, origin: Int32) {
            self.database = database
            self.origin = origin
        }
    }

    /// `down := format: u8 = 1, position: varint, acknowledged: varint, clock: varint`:
    /// the last change-log position applied (or passed over), the newest local save
    /// PostgreSQL is known to hold (its own marker was read back), and the store's hybrid
    /// logical clock after this commit.
    struct Down: Equatable {
        var position: UInt64
        var acknowledged: UInt64
        var clock: UInt64

        var encoded: [UInt8] {
            var w = ByteWriter(capacity: 24)
            w.bytes.append(SyncRecords.format)
            w.varint(position)
            w.varint(acknowledged)
            w.varint(clock)
            return w.bytes
        }

        /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
        init(decoding bytes: UnsafeRawBufferPointer) throws {
            var r = ByteReader(bytes)
            do {
                try SyncRecords.checkFormat(try r.byte(), key: "down")
                position = try r.varint()
                acknowledged = try r.varint()
                clock = try r.varint()
                guard r.isAtEnd else { throw SyncRecords.damaged("down", "bytes after the clock") }
            } catch is ByteReader.Truncated {
                throw SyncRecords.damaged("down", "the record ends early")
            }
        }

        init(position: UInt64, acknowledged: UInt64, clock: UInt64) {
            self.position = position
            self.acknowledged = acknowledged
            self.clock = clock
        }
    }

    static func checkFormat(_ format: UInt8, key: String) throws {
        guard format == Self.format else {
            throw damaged(key, "unknown format \(format) (written by a newer Logbook?)")
        }
    }

    static func damaged(_ key: String, _ reason: String) -> LogbookError {
        .corruptRecord(entity: keyspace, key: key, reason: reason)
    }
}
