import Foundation

/// The engine group (issues 6 and 36): LogStore against a SQLite key/value table, LMDB, LevelDB
/// and RocksDB on db_bench's workloads. 12-byte keys, 40-byte values; bulk writes in batches of
/// `sizes.batch` records (one LogStore commit, one transaction or write batch of each peer),
/// buffered unless the name says sync.

/// The value bytes of every workload (a global `let`: built once, on first use, thread-safe).
let valuePool = ValuePool()

/// What one engine's run produced, compared between engines.
struct EngineOutcome: Equatable {
    var checksum: Checksum
    var count: Int
    /// Bytes of the store's files after the run (after close, SQLite's WAL checkpointed).
    /// Engines compare equal on what they read, whatever their files.
    var fileBytes: Int64 = 0

    static func == (a: EngineOutcome, b: EngineOutcome) -> Bool {
        a.checksum == b.checksum && a.count == b.count
    }
}

enum EngineWorkloads {
    static var all: [Workload] {
        [
            workload("fillseq", "N puts, ids in ascending order", fillseq),
            workload("fillseq-onebatch", "N puts, ascending, all in one batch", fillOneBatch),
            workload("fillrandom", "N puts, ids uniform at random", fillrandom),
            workload("overwrite", "N random puts over a loaded store", overwrite),
            workload("readrandom", "N random gets on a reopened store, 3 passes", readrandom),
            MemoryLatency.workload,
            ReadFloor.workload,
            workload("readseq", "iterate every record of a reopened store, 3 passes", readseq),
            workload(
                "deleterandom", "N random deletes (with repeats) on a loaded store", deleterandom),
            workload(
                "reopen", "close, then open a loaded store and get one key (best of 3)", reopen),
            ReopenFloor.workload,
        ]
    }

    /// `LOGBOOK_BENCH_LOGSTORE_ONLY=1` runs the engine group's workloads (and `compact`) on
    /// LogStore alone (as `--engines none`): for runs at sizes where SQLite's side would take
    /// most of the time (10M keys); nothing is compared then.
    static let logStoreOnly =
        ProcessInfo.processInfo.environment["LOGBOOK_BENCH_LOGSTORE_ONLY"] == "1"

    /// Wraps a generic workload: runs it on LogStore, then on each peer, checks that every
    /// peer read what LogStore read, and compares Logbook with the best peer on each row.
    private static func workload(
        _ name: String, _ summary: String,
        _ body: @escaping (any KeyValueEngine.Type, String, BenchContext) throws -> EngineOutcome
    ) -> Workload {
        Workload(name: name, group: "engine", summary: summary) { context in
            let peers = context.peers
            context.reporter.note(
                "\(name): \(summary); N=\(context.sizes.keys), \(BenchKey.size)-byte keys, "
                    + "\(context.sizes.valueSize)-byte values; buffered ("
                    + Peers.settings([LogStoreEngine.self] + peers, durable: false) + ")")
            let mark = context.reporter.mark
            let ours = try ScratchDirectory.with(name) {
                try body(LogStoreEngine.self, $0, context)
            }
            var sizes = [(LogStoreEngine.label, Optional(ours.fileBytes))]
            for peer in peers {
                let theirs = try ScratchDirectory.with(name) { try body(peer, $0, context) }
                try context.agree(
                    name, "records read", logbook: ours.checksum, peer: peer.label,
                    theirs.checksum)
                try context.agree(
                    name, "records left", logbook: ours.count, peer: peer.label, theirs.count)
                sizes.append((peer.label, theirs.fileBytes))
            }
            if name.hasPrefix("fillseq"), !peers.isEmpty {
                context.reporter.sizes("\(name)-size", sizes)
            }
            context.reporter.compareWithPeers(since: mark)
        }
    }

    // MARK: Workloads (each takes the engine type, so both engines run the same operations)

    static func fillseq(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    )
        throws -> EngineOutcome
    {
        try fill(type, directory, context, name: "fillseq") { $0 + 1 }
    }

    /// The load of issue 2's budget: N records in one `.buffered` batch, one SQLite transaction.
    static func fillOneBatch(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    ) throws -> EngineOutcome {
        try fill(type, directory, context, name: "fillseq-onebatch", batch: context.sizes.keys) {
            $0 + 1
        }
    }

    static func fillrandom(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    ) throws -> EngineOutcome {
        var rng = SeededGenerator(seed: Seed.access)
        let n = context.sizes.keys
        return try fill(type, directory, context, name: "fillrandom") { _ in rng.id(upTo: n) }
    }

    static func overwrite(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    )
        throws -> EngineOutcome
    {
        let n = context.sizes.keys
        let engine = try type.init(directory: directory, durable: false)
        try write(engine, count: n, batch: context.sizes.batch, valueSize: context.sizes.valueSize)
        {
            $0 + 1
        }
        var rng = SeededGenerator(seed: Seed.access)
        let seconds = try measure {
            try write(
                engine, count: n, batch: context.sizes.batch, valueSize: context.sizes.valueSize,
                valueSeed: Seed.access
            ) { _ in rng.id(upTo: n) }
        }
        context.reporter.timing(
            "overwrite", engine: type.label, operations: n, bytes: n * recordBytes(context),
            seconds: seconds)
        return try finish(engine, directory)
    }

    static func readrandom(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    )
        throws -> EngineOutcome
    {
        let n = context.sizes.keys
        let engine = try loadAndReopen(type, directory, context)
        var checksum = Checksum()
        var key = BenchKey.make(0)
        _ = try timedPasses(type, context, "readrandom", bytes: n * recordBytes(context)) {
            var rng = SeededGenerator(seed: Seed.access)
            var pass = Checksum()
            try engine.beginReads()
            let seconds = try measure {
                for _ in 0..<n {
                    BenchKey.write(rng.id(upTo: n), into: &key)
                    try engine.get(key) { value in if let value { pass.add(value: value) } }
                }
            }
            try engine.endReads()
            try context.expect("readrandom", type.label, "values found", pass.records, equals: n)
            checksum = pass
            return seconds
        }
        var outcome = try finish(engine, directory)
        outcome.checksum = checksum
        return outcome
    }

    static func readseq(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    )
        throws -> EngineOutcome
    {
        let engine = try loadAndReopen(type, directory, context)
        let bytes = context.sizes.keys * recordBytes(context)
        _ = try timedPasses(type, context, "readseq", bytes: bytes) {
            var checksum = Checksum()
            try engine.beginReads()
            let seconds = try measure {
                try engine.forEachRecord { key, value in checksum.add(key: key, value: value) }
            }
            try engine.endReads()
            try context.expect(
                "readseq", type.label, "records", checksum.records, equals: context.sizes.keys)
            return seconds
        }
        return try finish(engine, directory)
    }

    static func deleterandom(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    ) throws -> EngineOutcome {
        let n = context.sizes.keys
        let batch = context.sizes.batch
        let engine = try type.init(directory: directory, durable: false)
        try write(engine, count: n, batch: batch, valueSize: context.sizes.valueSize) { $0 + 1 }
        var rng = SeededGenerator(seed: Seed.access)
        var deleted = [Bool](repeating: false, count: n + 1)
        var key = BenchKey.make(0)
        let seconds = try measure {
            var done = 0
            while done < n {
                try engine.beginBatch()
                for _ in 0..<min(batch, n - done) {
                    let id = rng.id(upTo: n)
                    deleted[id] = true
                    BenchKey.write(id, into: &key)
                    try engine.delete(key)
                }
                try engine.commitBatch()
                done += batch
            }
        }
        context.reporter.timing(
            "deleterandom", engine: type.label, operations: n, bytes: n * BenchKey.size,
            seconds: seconds)
        let outcome = try finish(engine, directory)
        let expected = n - deleted.lazy.filter { $0 }.count
        try context.expect(
            "deleterandom", type.label, "records left", outcome.count, equals: expected)
        return outcome
    }

    static func reopen(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    )
        throws -> EngineOutcome
    {
        let n = context.sizes.keys
        try load(type, directory, context)
        let key = BenchKey.make(max(n / 2, 1))
        var best = Double.infinity
        var checksum = Checksum()
        for _ in 0..<3 {
            var read = Checksum()
            var engine: (any KeyValueEngine)?
            let seconds = try measure {
                let opened = try type.init(directory: directory, durable: false)
                try opened.get(key) { value in if let value { read.add(value: value) } }
                engine = opened
            }
            try engine?.close()
            engine = nil
            best = min(best, seconds)
            checksum = read
        }
        try context.expect("reopen", type.label, "values found", checksum.records, equals: 1)
        context.reporter.timing(
            "reopen", engine: type.label, operations: 1, bytes: 0, seconds: best,
            note: "\(n) keys, open + 1 get, best of 3")
        let engine = try type.init(directory: directory, durable: false)
        var outcome = try finish(engine, directory)
        outcome.checksum = checksum
        return outcome
    }

    // MARK: Helpers

    /// Runs a read-only `pass` three times on the same store: reports the first pass (right
    /// after open, caches cold) as `<name>-first` and the best of all three as `<name>`.
    static func timedPasses(
        _ type: any KeyValueEngine.Type, _ context: BenchContext, _ name: String, bytes: Int,
        _ pass: () throws -> Double
    ) throws -> Double {
        let n = context.sizes.keys
        let first = try pass()
        let best = min(first, try pass(), try pass())
        context.reporter.timing(
            name + "-first", engine: type.label, operations: n, bytes: bytes, seconds: first,
            note: "first pass after open")
        context.reporter.timing(
            name, engine: type.label, operations: n, bytes: bytes, seconds: best,
            note: "best of 3 passes")
        return best
    }

    static func recordBytes(_ context: BenchContext) -> Int {
        BenchKey.size + context.sizes.valueSize
    }

    /// Times `N` puts of the ids `id(0)…id(N-1)` into a fresh store.
    private static func fill(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext,
        name: String, batch: Int? = nil, id: (Int) -> Int
    ) throws -> EngineOutcome {
        let n = context.sizes.keys
        let engine = try type.init(directory: directory, durable: false)
        let seconds = try measure {
            try write(
                engine, count: n, batch: batch ?? context.sizes.batch,
                valueSize: context.sizes.valueSize, id: id)
        }
        context.reporter.timing(
            name, engine: type.label, operations: n, bytes: n * recordBytes(context),
            seconds: seconds)
        return try finish(engine, directory)
    }

    /// Puts `count` records under ids `id(0)…`, in batches; values from the pool, drawn by a
    /// generator seeded with `valueSeed` (so both engines write the same bytes).
    static func write(
        _ engine: any KeyValueEngine, count: Int, batch: Int, valueSize: Int,
        valueSeed: UInt64 = Seed.data, id: (Int) -> Int
    ) throws {
        var key = BenchKey.make(0)
        var value = [UInt8](repeating: 0, count: valueSize)
        var valueRNG = SeededGenerator(seed: valueSeed)
        var index = 0
        while index < count {
            try engine.beginBatch()
            let end = min(index + batch, count)
            while index < end {
                BenchKey.write(id(index), into: &key)
                valuePool.fill(&value, using: &valueRNG)
                try engine.put(key, value)
                index += 1
            }
            try engine.commitBatch()
        }
    }

    /// Loads ids 1…N (untimed) and closes.
    static func load(_ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext)
        throws
    {
        let engine = try type.init(directory: directory, durable: false)
        try write(
            engine, count: context.sizes.keys, batch: context.sizes.batch,
            valueSize: context.sizes.valueSize
        ) {
            $0 + 1
        }
        try engine.close()
    }

    /// Loads ids 1…N, closes and opens again: reads start from a store as an app finds it.
    static func loadAndReopen(
        _ type: any KeyValueEngine.Type, _ directory: String, _ context: BenchContext
    ) throws -> any KeyValueEngine {
        try load(type, directory, context)
        return try type.init(directory: directory, durable: false)
    }

    /// Checksums every record (untimed), closes, and measures the files.
    static func finish(_ engine: any KeyValueEngine, _ directory: String) throws -> EngineOutcome {
        var checksum = Checksum()
        try engine.forEachRecord { key, value in checksum.add(key: key, value: value) }
        let count = try engine.count()
        try engine.close()
        return EngineOutcome(
            checksum: checksum, count: count,
            fileBytes: type(of: engine).fileBytes(under: directory))
    }
}
