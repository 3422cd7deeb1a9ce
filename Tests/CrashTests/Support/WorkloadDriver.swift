import Foundation
import LogStore
import TestSupport

/// A store's contents: `"keyspace/key"` → value, over every keyspace.
typealias Contents = [String: [UInt8]]

/// Whether two ``Contents`` hold the same keys with the same bytes, each value compared with
/// `memcmp`: the generic comparison an unoptimized build calls compares `[UInt8]` element by
/// element, which took seconds of the crash suites on their megabyte stores. Preferred over
/// the generic `==` wherever both sides are `Contents`.
func == (a: Contents, b: Contents) -> Bool {
    guard a.count == b.count else { return false }
    for (key, value) in a {
        guard let other = b[key], other.count == value.count else { return false }
        guard !value.isEmpty else { continue }
        let same = value.withUnsafeBytes { x in
            other.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
        guard same else { return false }
    }
    return true
}

/// The negation of ``==(_:_:)`` for ``Contents``.
func != (a: Contents, b: Contents) -> Bool { !(a == b) }

/// Every live key and value of `store`.
func contents(of store: LogStore) throws -> Contents {
    var result: Contents = [:]
    for keyspace in try store.keyspaces() {
        try store.forEach(in: keyspace) { key, value in
            result[keyspace + "/" + String(decoding: key, as: UTF8.self)] = [UInt8](value)
        }
    }
    return result
}

/// Runs a workload against a store and keeps the model: the contents after every commit, by
/// sequence number, and what was acknowledged. With a ``RecordingFileSystem`` it also notes each
/// commit's start and each acknowledgement in the trace.
///
/// Not thread-safe: one workload thread.
final class WorkloadDriver {
    let path: String
    var fileSystem: any FileSystem
    var recorder: RecordingFileSystem?
    let segmentSize: Int
    /// Whether the store compacts by itself, in the background, as dead bytes pile up.
    var automaticCompaction = false
    /// Whether clean closes write the key directory file (FORMAT.md, "Key directory file").
    var keyDirectoryFile = false
    /// How the writer reserves zero tails (FORMAT.md, "Zero tail"): small steps, so that the
    /// extensions' writes and syncs are crash points of every workload that syncs enough.
    var zeroTail = ZeroTailPolicy(step: 512, afterDurableGroups: 8)
    private(set) var store: LogStore?
    /// Contents after each commit (0: the empty store).
    private(set) var states: [UInt64: Contents] = [0: [:]]
    /// The model's contents now.
    private(set) var current: Contents = [:]
    /// Highest sequence promised durable.
    private(set) var acknowledged: UInt64 = 0
    /// Highest sequence started.
    private(set) var attempted: UInt64 = 0
    var rng: SeededGenerator

    init(
        path: String, fileSystem: any FileSystem = PosixFileSystem(), segmentSize: Int, seed: UInt64
    ) {
        self.path = path
        self.fileSystem = fileSystem
        self.segmentSize = segmentSize
        self.rng = SeededGenerator(seed: seed)
    }

    var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.fileSystem = fileSystem
        options.segmentSize = segmentSize
        options.autoCompactionDeadFraction = automaticCompaction ? 0.3 : nil
        options.autoCompactionMinimumBytes = 512
        options.keyDirectoryFileMinimumKeys = keyDirectoryFile ? 0 : nil
        options.keyDirectoryFileMaximumShare = nil
        options.zeroTail = zeroTail
        return options
    }

    /// Opens the store.
    func open() throws {
        store = try openStore(path, options: options)
    }

    /// Commits `changes` as one batch and updates the model.
    @discardableResult
    func commit(_ changes: [Change], durability: Durability = .sync) throws -> UInt64 {
        let store = self.store!
        let expected = store.lastSequence + 1
        let batch = Change.batch(changes)
        var next = current
        Change.apply(changes, to: &next)
        states[expected] = next
        attempted = max(attempted, expected)
        recorder?.attempt(expected)
        let sequence = try store.commit(batch, durability: durability)
        precondition(sequence == expected, "commit got \(sequence), expected \(expected)")
        current = next
        if durability == .sync { acknowledge(sequence) }
        return sequence
    }

    /// Writes `chunks` as one streaming commit and updates the model; with `cancelAfter`,
    /// cancels it after that many chunks instead (the model does not change).
    @discardableResult
    func stream(_ chunks: [[Change]], durability: Durability = .sync, cancelAfter: Int? = nil)
        throws -> UInt64
    {
        let store = self.store!
        let expected = store.lastSequence + 1
        var next = current
        for chunk in chunks { Change.apply(chunk, to: &next) }
        if cancelAfter == nil {
            states[expected] = next
            attempted = max(attempted, expected)
            recorder?.attempt(expected)
        }
        let commit = try store.beginCommit(durability: durability)
        for (i, chunk) in chunks.enumerated() {
            if i == cancelAfter {
                commit.cancel()
                return 0
            }
            try commit.append(Change.batch(chunk))
        }
        let sequence = try commit.finish()
        precondition(sequence == expected, "stream got \(sequence), expected \(expected)")
        current = next
        if durability == .sync { acknowledge(sequence) }
        return sequence
    }

    /// `count` puts of random `size`-byte values to keys `prefix0`… of keyspace `keyspace`.
    func puts(_ prefix: String, _ range: Range<Int>, in keyspace: String = "a", size: Int)
        -> [Change]
    {
        range.map { .put(keyspace: keyspace, key: "\(prefix)\($0)", value: value(size)) }
    }

    /// A put of a random value of `size` bytes.
    func put(
        _ key: String, in keyspace: String = "a", size: Int = 24, durability: Durability = .sync
    )
        throws
    {
        try commit([.put(keyspace: keyspace, key: key, value: value(size))], durability: durability)
    }

    func delete(_ key: String, in keyspace: String = "a") throws {
        try commit([.delete(keyspace: keyspace, key: key)])
    }

    /// Random bytes, eight from each number of the generator (a byte at a time was about a tenth
    /// of PowerLossTests' CPU in a debug build).
    func value(_ size: Int) -> [UInt8] { rng.bytes(size) }

    func compact() throws {
        try store!.compact()
        acknowledge(store!.lastSequence)
    }

    func sync() throws {
        try store!.sync()
        acknowledge(store!.lastSequence)
    }

    func close() throws {
        let last = store!.lastSequence
        try store!.close()
        store = nil
        acknowledge(last)
    }

    /// Starts from a store already on disk that holds `contents` as of commit `sequence`.
    func assume(_ contents: Contents, at sequence: UInt64) {
        states = [sequence: contents]
        current = contents
        acknowledged = sequence
        attempted = sequence
    }

    /// Forgets commits after `sequence` (a test cut them off the disk itself).
    func forget(after sequence: UInt64) {
        states = states.filter { $0.key <= sequence }
        current = states[sequence]!
        attempted = sequence
        acknowledged = min(acknowledged, sequence)
    }

    private func acknowledge(_ sequence: UInt64) {
        acknowledged = max(acknowledged, sequence)
        recorder?.acknowledge(sequence)
    }
}

/// Opens a store, retrying for a while if it is `locked`.
///
/// Why: other tests in this process spawn child processes. Between `fork` and `exec` a child
/// holds a copy of every descriptor of the parent, `O_CLOEXEC` or not, and so shares the
/// `flock` of any store open at that moment: a store closed and reopened right then reads as
/// locked for a moment. The tests that use this are about what recovery finds, not about
/// locking (``LockTests`` is).
func openStore(_ path: String, options: LogStoreOptions = LogStoreOptions()) throws -> LogStore {
    let deadline = Date().addingTimeInterval(5)
    while true {
        do {
            return try LogStore(path: path, options: options)
        } catch LogStoreError.locked where Date() < deadline {
            usleep(1_000)
        }
    }
}
