/// Reads a store's files record by record and checks them, for tools (`logbook dump`,
/// `logbook verify`) and tests. It never writes (but for ``discardCutFiles(storeAt:)``) and needs
/// no lock, so it works on a store another process has open for writing; it sees the commits
/// complete when it reads each file.
///
/// Its checks are `open`'s, from the same code (``verify(storeAt:)``): the two never
/// disagree about what is damaged, what is a torn tail and which hint files are usable.
public enum LogInspector {
    /// What a record does.
    public enum RecordKind: String, Sendable {
        case put, delete
        /// Names a keyspace number (FORMAT.md, "Records").
        case defineKeyspace = "define-keyspace"
    }

    /// One record, where it lies and what it holds: as ``Record`` with its key and value
    /// copied (``LogInspector/walk(storeAt:_:)``); the tools also visit records with them lent
    /// for the call.
    public struct InspectedRecord<Bytes> {
        /// The segment file's name.
        public var segment: String
        /// Offset of the frame that holds the record.
        public var frameOffset: Int64
        /// Offset of the record's first byte.
        public var recordOffset: Int64
        /// The commit's sequence number.
        public var sequence: UInt64
        public var kind: RecordKind
        /// The keyspace's name (for `defineKeyspace`, the name it defines).
        public var keyspace: String
        /// The key (empty for `defineKeyspace`).
        public var key: Bytes
        /// The value of a put.
        public var value: Bytes?
    }

    /// A record with its key and value copied (``walk(storeAt:_:)``).
    public typealias Record = InspectedRecord<[UInt8]>
    /// A record as the verifier visits it: its key and value are valid only during the call.
    package typealias VisitedRecord = InspectedRecord<UnsafeRawBufferPointer>

    /// Something found in a store's files, with what `open` does about it.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// What kind of thing it is.
        public enum Kind: String, Sendable {
            /// Bytes that are not what FORMAT.md allows and no crash can explain: `open` refuses
            /// the store (salvage mode skips them, or moves an unreadable segment aside).
            case corruption
            /// A file of a newer format version than this library reads: `open` refuses it.
            case unsupportedVersion
            /// An incomplete last commit of the newest segment, what a crash during a write
            /// leaves: no acknowledged commit is in it, and the next open for writing cuts it
            /// (keeping the bytes in a `*.cut` file).
            case tornTail
            /// A hint file that does not describe its segment: `open` ignores it and scans the
            /// segment (slower, never wrong).
            case unusableHint
            /// A key directory file (`keys.dir`) that does not describe the store (stale or
            /// damaged): `open` ignores it and rebuilds the index from hints and segments
            /// (slower, never wrong). Also one that passes `open`'s checks but whose entries
            /// differ from the index the log gives (a forged or miswritten file, which only
            /// `verify` finds: its reason then says that `open` would use it).
            case unusableKeyDirectory
            /// A file the store never reads: one left by an interrupted compaction, hint write
            /// or cut (`*.tmp`, removed by the next open for writing), a hint without its segment,
            /// or a segment salvage moved aside (`*.seg.damaged`).
            case leftoverFile
            /// Bytes a recovery cut from a torn tail, kept aside (`*.cut`) until a compaction or
            /// ``LogInspector/discardCutFiles(storeAt:)``.
            case cutBytes
        }

        public var path: String
        /// Where in the file, when the problem is at a place in it.
        public var offset: Int64?
        public var reason: String
        public var kind: Kind

        /// Whether this is an incomplete last commit (what a crash leaves; `open` cuts it).
        public var isTornTail: Bool { kind == .tornTail }

        /// Whether this is damage (`open` refuses the store), not a warning.
        public var isDamage: Bool { kind == .corruption || kind == .unsupportedVersion }

        public var description: String {
            path + (offset.map { " at offset \($0)" } ?? "") + ": " + reason
                + (isTornTail ? " (torn tail: an incomplete last commit)" : "")
        }
    }

    /// Counts from a walk, and the damage it found in the log (torn tails included; warnings
    /// about hint and leftover files are ``verify(storeAt:)``'s): a ``VerifyReport``.
    public typealias Summary = VerifyReport

    /// Calls `body` with every record of every complete commit, in replay order. Damaged regions
    /// are skipped and listed in the summary; a file that cannot be read at all is listed too.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the directory cannot be listed,
    ///   ``LogStoreError/invalidArgument(_:)`` if `path` is not a directory, or what `body` throws.
    /// - Complexity: O(bytes of the segments); memory is bounded (one copied record at a time).
    @discardableResult
    public static func walk(storeAt path: String, _ body: (Record) throws -> Void) throws -> Summary
    {
        try walkInPlace(storeAt: path) { try body(Record(copying: $0)) }
    }
}

extension LogInspector.InspectedRecord: Sendable where Bytes: Sendable {}
