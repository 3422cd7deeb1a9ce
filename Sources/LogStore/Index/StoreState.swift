/// Keyspace names and numbers (FORMAT.md, "Records": `defineKeyspace`).
struct KeyspaceTable {
    static let maxNameLength = 1024

    private(set) var ids: [String: Int] = [:]
    private(set) var names: [String?] = [nil]  // index 0 is reserved
    /// By number, ``KeyDirectory/hash(_:)`` of the name's UTF-8: every read names its keyspace,
    /// and this finds it without the dictionary's SipHash of the name.
    private var nameHashes: [UInt32] = [0]

    /// Up to this many keyspaces, ``id(of:)`` scans `nameHashes` rather than hashing for `ids`.
    static let scanLimit = 64

    var nextID: Int { names.count }

    @inline(__always)
    func id(of name: String) -> Int? {
        if names.count <= Self.scanLimit,
            let found = name.utf8.withContiguousStorageIfAvailable({ utf8 -> Int in
                let hash = KeyDirectory.hash(UnsafeRawBufferPointer(utf8))
                var id = 1
                while id < nameHashes.count {
                    if nameHashes[id] == hash && names[id] == name { return id }
                    id &+= 1
                }
                return 0
            })
        {
            return found == 0 ? nil : found
        }
        return ids[name]
    }

    /// The name ``cachedID(of:)`` last found, and its number (0 before the first).
    private var lastName = ""
    private var lastID = 0

    /// ``id(of:)``, remembering the name it last found: reads name the same keyspace again
    /// and again, and a repeat costs a string comparison (a word compare for a short name)
    /// rather than a hash of the name and a scan.
    @inline(__always)
    mutating func cachedID(of name: String) -> Int? {
        if lastID != 0 && name == lastName { return lastID }
        guard let id = id(of: name) else { return nil }
        lastName = name
        lastID = id
        return id
    }

    func name(of id: Int) -> String? { id < names.count ? names[id] : nil }

    /// Records that `id` names `name`; `false` (and no change) if the number is taken by another
    /// name, the name by another number, or the number is out of order.
    mutating func define(_ name: String, id: Int) -> Bool {
        definitionProblem(name, id: id) == nil
    }

    /// Why `id` cannot name `name` (FORMAT.md, "Records": numbers are given out in order and
    /// never change), or `nil` after recording it. A repeated definition is fine.
    private mutating func definitionProblem(_ name: String, id: Int) -> String? {
        if let existing = ids[name] {
            return existing == id
                ? nil : "keyspace \"\(name.prefix(40))\" is defined as \(id), but was \(existing)"
        }
        if id < names.count {
            return
                "keyspace \(id) is defined as \"\(name.prefix(40))\", but was \"\((names[id] ?? "").prefix(40))\""
        }
        if id > names.count {
            return "keyspace \(id) is defined out of order (the next number is \(names.count))"
        }
        names.append(name)
        ids[name] = id
        nameHashes.append(
            name.utf8.withContiguousStorageIfAvailable {
                KeyDirectory.hash(UnsafeRawBufferPointer($0))
            } ?? Array(name.utf8).withUnsafeBytes { KeyDirectory.hash($0) })
        return nil
    }

    /// Why the checked record `record` breaks the keyspace rules given what is defined so far, or
    /// `nil` (after recording a definition): a put or delete must use a defined number, and a
    /// definition must agree with the earlier ones.
    @inline(__always)
    mutating func check(_ record: RecordView) -> String? {
        let id = Int(clamping: record.keyspace)
        if record.op == RecordOp.defineKeyspace {
            guard let name = String(validating: record.key, as: UTF8.self) else {
                return "keyspace \(id) is defined with a name that is not UTF-8"
            }
            return definitionProblem(name, id: id)
        }
        guard id < names.count else {
            return "record uses keyspace \(id), which is not defined before it"
        }
        return nil
    }
}

/// Everything readers look at, guarded by the store's index lock: keyspace names, one
/// ``KeyDirectory`` per keyspace, the mapped segments, and the last visible sequence number.
struct StoreState: @unchecked Sendable {  // only ever touched under the index lock
    var keyspaces = KeyspaceTable()
    var directories: [KeyDirectory] = [KeyDirectory()]  // by keyspace number; 0 unused
    /// Segments by handle; `nil` once a segment is removed by compaction.
    var segments: [Segment?] = []
    var lastSequence: UInt64 = 0
    var closed = false
    /// The keyspaces replay indexes, or `nil` for all: a tool that reads only a few of them
    /// (``LogStoreOptions/indexedKeyspaces``) is spared the memory of the others' index.
    var onlyKeyspaces: Set<String>?
    /// By keyspace number, whether replay indexes its keys.
    private(set) var indexed: [Bool] = [false]

    /// The state the key directory file on disk describes, if it describes one this session
    /// reached (open used it whole, or close wrote it): close then need not write it again.
    var keyDirectoryFileState: KeyDirectoryFile.Current?

    /// Base addresses and readable sizes of `segments`, kept in step with it (``setSize(of:_:)``).
    var bases = SegmentBases()

    /// Set when a lookup met an entry that points at no record of its key (only a damaged key
    /// directory file maps one): close then removes that file rather than writing the table
    /// again, so the next open rebuilds the index from the log.
    var keyDirectoryDamaged = false

    /// How many times the index was rebuilt since open (``replaceIndex(with:)``): a view made
    /// before a rebuild must not read the table it was made with.
    private(set) var rebuilds = 0

    /// The checks of the key directory file's tables that open left for later, until they run
    /// (``StoreStateLock``): while set, only point reads use the tables. Set through
    /// ``setPendingCheck(_:)``.
    private(set) var pendingCheck: PendingKeyDirectoryCheck?

    /// Whether ``pendingCheck`` is set, asked on every point read. Kept apart: asking
    /// `pendingCheck != nil` copies the check (its tables' dictionary and flags) and destroys
    /// the copy, each time.
    private(set) var hasPendingCheck = false

    /// Sets ``pendingCheck``; a check with no table left is none.
    mutating func setPendingCheck(_ check: PendingKeyDirectoryCheck?) {
        pendingCheck = (check?.pendingTables ?? 0) > 0 ? check : nil
        hasPendingCheck = pendingCheck != nil
    }

    /// ``PendingKeyDirectoryCheck/checkProbe(hash:entries:in:)`` on the pending check, where it
    /// lies in the state (a copy would copy its tables' block flags). Call only while
    /// ``hasPendingCheck``. Returns whether every block of the table has now been checked.
    @inline(__always)
    mutating func checkPendingProbe(
        hash: UInt32, entries: UnsafeBufferPointer<KeyDirectory.Entry>, in id: Int
    ) throws(KeyDirectoryFile.Unusable) -> Bool {
        try pendingCheck!.checkProbe(hash: hash, entries: entries, in: id)
    }

    /// By keyspace number, the key order of each ordered keyspace, `nil` for the others; empty
    /// until ``buildOrder(of:)`` (StoreState+Ordered.swift) turns it on after replay.
    var ordered: [OrderedKeys?] = []
    /// The names ``buildOrder(of:)`` declared ordered.
    var orderedNames: Set<String> = []
    var orderedDeltaLimit = OrderedKeys.defaultDeltaLimit

    /// Takes the index `rebuilt` (the same segments, indexed from the log) in place of this one,
    /// keeping which keyspaces are ordered.
    mutating func replaceIndex(with rebuilt: StoreState) {
        let names = orderedNames
        let limit = orderedDeltaLimit
        let rebuilds = self.rebuilds
        self = rebuilt
        self.rebuilds = rebuilds + 1
        buildOrder(of: names, deltaLimit: limit)
    }

    /// Adds a segment; its handle must be the next one.
    mutating func addSegment(_ segment: Segment) {
        // Invariant: handles are dense and equal to the index in `segments`.
        assert(Int(segment.handle) == segments.count)
        segments.append(segment)
        bases.append(segment.base, size: segment.size)
    }

    /// Sets `segment.size` (readers read no further), and the size reads check records against.
    @inline(__always)
    mutating func setSize(of segment: Segment, _ size: Int) {
        segment.size = size
        bases.setSize(Int(segment.handle), size)
    }

    /// Applies one put: points its key at the record `ref`, which takes `encodedSize` bytes of
    /// its segment, and moves live-byte accounting from the record it replaces.
    ///
    /// `encodedSize` is what the record really takes, which is more than
    /// ``RecordFormat/encodedSize(keyspace:keyLength:valueLength:)`` when a file holds longer varints than
    /// needed (FORMAT.md allows them): the bytes added here must be those subtracted when the
    /// record is replaced (``StoredRecord/encodedSize``).
    @inline(__always)
    mutating func applyPut(
        keyspace: Int, hash: UInt32, ref: RecordRef, keyLength: Int, valueLength: Int,
        encodedSize: Int
    ) {
        segments[Int(ref.segment)]?.liveBytes += Int64(encodedSize)
        if let (oldRef, old) = directories[keyspace].set(
            hash: hash, to: ref, bytes: keyLength + valueLength, recordSize: encodedSize, bases)
        {
            segments[Int(oldRef.segment)]?.liveBytes -= Int64(old.encodedSize)
        }
        if !ordered.isEmpty && ordered[keyspace] != nil { keepOrder(put: ref, keyspace: keyspace) }
    }

    /// Applies one delete.
    @inline(__always)
    mutating func applyDelete(keyspace: Int, key: UnsafeRawBufferPointer) {
        if let (oldRef, old) = directories[keyspace].remove(key, bases) {
            segments[Int(oldRef.segment)]?.liveBytes -= Int64(old.encodedSize)
            if !ordered.isEmpty && ordered[keyspace] != nil {
                keepOrder(removed: oldRef, keyspace: keyspace)
            }
        }
    }

    /// Registers a keyspace name; `false` if `id` conflicts with what is known.
    mutating func define(_ name: String, id: Int) -> Bool {
        guard keyspaces.define(name, id: id) else { return false }
        while directories.count <= id { directories.append(KeyDirectory()) }
        if !ordered.isEmpty { extendOrder() }
        while indexed.count <= id {
            indexed.append(
                onlyKeyspaces.map { $0.contains(keyspaces.name(of: indexed.count) ?? "") } ?? true)
        }
        return true
    }

    /// Applies every record of a commit that `scanner` reported complete (its keyspace use
    /// checked too), read from `segment`: recovery, and a streaming commit's publication.
    mutating func applyCommit(
        _ scanner: inout SegmentScanner, start: Int, end: Int, segment: Segment
    ) {
        var slots = CommitLookahead(scanner.bytes, start: start, end: end)
        var olds = CommitLookahead(scanner.bytes, start: start, end: end)
        // A keyspace the commit defines has no directory until its definition is applied.
        @inline(__always) func prefetchSlot(_ keyspace: Int, _ hash: UInt32) {
            guard keyspace < directories.count else { return }
            KeyDirectory.prefetchSlot(directories[keyspace].entries, hash)
        }
        @inline(__always) func prefetchRecord(_ keyspace: Int, _ hash: UInt32) {
            guard keyspace < directories.count else { return }
            KeyDirectory.prefetchRecord(directories[keyspace].entries, hash, bases)
        }
        for _ in 0..<KeyDirectory.slotLookahead { slots.next(prefetchSlot) }
        for _ in 0..<KeyDirectory.recordLookahead { olds.next(prefetchRecord) }
        scanner.forEachRecord(start: start, end: end) { record in
            slots.next(prefetchSlot)
            olds.next(prefetchRecord)
            let keyspace = Int(clamping: record.keyspace)
            switch record.op {
            case RecordOp.defineKeyspace:
                let defined = define(String(decoding: record.key, as: UTF8.self), id: keyspace)
                // Invariant: the scanner checked every definition against the same table.
                assert(defined, "keyspace definition \(keyspace) conflicts")
            case _ where !indexed[keyspace]:
                break
            case RecordOp.put:
                applyPut(
                    keyspace: keyspace, hash: KeyDirectory.hash(record.key),
                    ref: RecordRef(segment: segment.handle, offset: UInt32(record.recordOffset)),
                    keyLength: record.key.count, valueLength: record.value!.count,
                    encodedSize: record.encodedSize)
            default:
                applyDelete(keyspace: keyspace, key: record.key)
            }
        }
    }
}

extension StoreState {
    /// The record holding `key` in keyspace `id`, if present.
    /// - Throws: ``LogStoreError/damagedKeyDirectory(path:reason:)`` (and marks the state so
    ///   close removes the file) if an entry on the way points at no record of its key: see
    ///   ``KeyDirectory/find(_:_:)``. `storePath` is the store's directory.
    @inline(__always)
    mutating func find(
        _ key: UnsafeRawBufferPointer, in id: Int, storePath: String
    ) throws(LogStoreError) -> (RecordRef, StoredRecord)? {
        do {
            // The directory's entries alone: `directories[id].find` would copy the directory
            // out, retaining and releasing its table (two atomic operations a lookup).
            return try KeyDirectory.probe(directories[id].entries, key, bases).map {
                ($0.ref, $0.record)
            }
        } catch {
            keyDirectoryDamaged = true
            throw Self.damaged(error, keyspace: keyspaces.name(of: id), storePath: storePath)
        }
    }

    /// The error for `damage`, met in `keyspace` of the store at `storePath`.
    @inline(never)
    static func damaged(
        _ damage: KeyDirectory.DamagedEntry, keyspace: String?, storePath: String
    ) -> LogStoreError {
        .damagedKeyDirectory(
            path: storePath + "/" + KeyDirectoryFile.name,
            reason: "an entry of keyspace \"\((keyspace ?? "?").prefix(40))\" cannot be trusted: "
                + damage.reason)
    }
}
