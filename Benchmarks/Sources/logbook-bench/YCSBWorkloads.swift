/// YCSB core workloads A–F (Cooper et al., SoCC 2010) on every engine's key/value store.
///
/// Per value size (1,000 bytes, the paper's 10 fields × 100 bytes, and 100 bytes) each engine
/// loads records 0…N-1 once, then runs A, B, C, F, D, E in that order on the same store (YCSB's
/// recommended sequence; D and E insert). The engines' stores are open together and take turns,
/// mix by mix, so that a busy stretch of a shared machine does not fall on one engine's whole
/// sequence. Every operation is its own transaction or write
/// (buffered), as independent client requests are. Keys are ordered (`insertorder=ordered`),
/// an update rewrites the whole value, and E's scan is each peer's range scan (SQLite's `WHERE
/// k >= ? ORDER BY k LIMIT ?`, a cursor or iterator of the others) and LogStore's iteration in
/// key order (the store's keyspace is declared ordered for the whole run, so the load and every
/// mix pay for keeping the order). Every engine gets the same operations from the same seeds,
/// and must read the same bytes.
enum YCSBWorkloads {
    struct Mix {
        var name: String
        var read = 0.0
        var update = 0.0
        var insert = 0.0
        var scan = 0.0
        var readModifyWrite = 0.0
        var latest = false
    }

    static let mixes = [
        Mix(name: "a", read: 0.5, update: 0.5),
        Mix(name: "b", read: 0.95, update: 0.05),
        Mix(name: "c", read: 1),
        Mix(name: "f", read: 0.5, readModifyWrite: 0.5),
        Mix(name: "d", read: 0.95, insert: 0.05, latest: true),
        Mix(name: "e", insert: 0.05, scan: 0.95),
    ]

    static let maxScanLength = 100

    static var all: [Workload] {
        [generatorCheck]
            + [1000, 100].map { valueSize in
                Workload(
                    name: "ycsb-\(valueSize)b", group: "ycsb",
                    summary: "YCSB A–F, zipfian, \(valueSize)-byte values"
                ) { context in
                    let records = context.sizes.keys
                    let operations = context.sizes.ycsbOperations
                    let peers = context.peers
                    context.reporter.note(
                        "ycsb-\(valueSize)b: \(records) records of \(valueSize) bytes, \(operations) "
                            + "operations per workload (A B C F D E in order on one store, the "
                            + "engines taking turns mix by mix), zipfian (D: latest); one "
                            + "transaction per operation, buffered ("
                            + Peers.settings([LogStoreEngine.self] + peers, durable: false)
                            + "); LogStore's keyspace is ordered and E's scans iterate it")
                    let mark = context.reporter.mark
                    let sums = try ScratchDirectory.with("ycsb") {
                        try run(
                            [OrderedLogStoreEngine.self] + peers, $0, context, valueSize: valueSize)
                    }
                    let ours = sums[0]
                    for (peer, theirs) in zip(peers, sums.dropFirst()) {
                        for (index, mix) in mixes.enumerated() {
                            try context.agree(
                                "ycsb-\(mix.name)/\(valueSize)b", "records read",
                                logbook: ours[index], peer: peer.label, theirs[index])
                        }
                        try context.agree(
                            "ycsb-\(valueSize)b", "records at the end", logbook: ours.last,
                            peer: peer.label, theirs.last)
                    }
                    context.reporter.compareWithPeers(since: mark)
                }
            } + [CommitFloor.workload]
    }

    /// Checks the generator port against YCSB itself: its FNV hash of 0 and 1 (from the Java
    /// sources' arithmetic) and the zipfian head, whose share of draws theory fixes.
    static var generatorCheck: Workload {
        Workload(name: "ycsb-generators", group: "ycsb", summary: "the YCSB generators match YCSB")
        { context in
            try context.expect(
                "ycsb-generators", "ycsb", "fnvhash64(0), fnvhash64(1)",
                [ScrambledZipfianGenerator.fnvHash64(0), ScrambledZipfianGenerator.fnvHash64(1)],
                equals: [6_284_781_860_667_377_211, 8_517_097_267_634_966_620])
            var zipfian = ZipfianGenerator(min: 0, max: 999)
            var rng = SeededGenerator(seed: Seed.access)
            let draws = 200_000
            var head = 0
            for _ in 0..<draws where zipfian.next(using: &rng) == 0 { head += 1 }
            let expected = 1 / ZipfianGenerator.zeta(from: 0, to: 1000, theta: 0.99, initial: 0)
            let share = Double(head) / Double(draws)
            context.reporter.figure(
                "ycsb-generators", engine: "ycsb", value: share * 100,
                unit: String(
                    format: "%% of zipfian draws on the head item (theory %.2f %%)", expected * 100)
            )
            try context.expect(
                "ycsb-generators", "ycsb", "zipfian head share within 5 % of theory",
                abs(share / expected - 1) < 0.05, equals: true)
        }
    }

    /// Opens a store of each engine in `directory` (their files have different names) and loads
    /// it, then runs every mix on each in turn; returns each engine's checksum of every mix, then
    /// of its final count.
    static func run(
        _ types: [any KeyValueEngine.Type], _ directory: String, _ context: BenchContext,
        valueSize: Int
    ) throws -> [[Checksum]] {
        let records = context.sizes.keys
        let engines = try types.map { try $0.init(directory: directory, durable: false) }
        for engine in engines {
            let loadSeconds = try measure {
                try EngineWorkloads.write(
                    engine, count: records, batch: context.sizes.batch, valueSize: valueSize
                ) { $0 }
            }
            context.reporter.timing(
                "ycsb-load/\(valueSize)b", engine: type(of: engine).label, operations: records,
                bytes: records * (BenchKey.size + valueSize), seconds: loadSeconds)
        }
        var results = [[Checksum]](repeating: [], count: engines.count)
        var nextInsert = [Int64](repeating: Int64(records), count: engines.count)
        for (index, mix) in mixes.enumerated() {
            for (position, engine) in engines.enumerated() {
                var checksum = Checksum()
                var bytes = 0
                var runner = MixRunner(
                    mix: mix, records: Int64(records), nextInsert: nextInsert[position],
                    operations: context.sizes.ycsbOperations, valueSize: valueSize,
                    seed: Seed.access &+ UInt64(index))
                let seconds = try measure {
                    try runner.run(engine, checksum: &checksum, bytes: &bytes)
                }
                nextInsert[position] = runner.nextInsert
                context.reporter.timing(
                    "ycsb-\(mix.name)/\(valueSize)b", engine: type(of: engine).label,
                    operations: context.sizes.ycsbOperations, bytes: bytes, seconds: seconds)
                results[position].append(checksum)
            }
        }
        for (position, engine) in engines.enumerated() {
            let records = try engine.count()
            try context.expect(
                "ycsb-\(valueSize)b", type(of: engine).label, "records", records,
                equals: Int(nextInsert[position]))
            var count = Checksum()
            count.add(Int64(records))
            results[position].append(count)
            try engine.close()
        }
        return results
    }
}

/// One YCSB workload's client loop (CoreWorkload's `doTransaction`), single-threaded.
struct MixRunner {
    let mix: YCSBWorkloads.Mix
    let operations: Int
    let valueSize: Int
    /// The next id an insert takes; `nextInsert - 1` is the latest (YCSB's insert sequence).
    private(set) var nextInsert: Int64
    private var keys: ScrambledZipfianGenerator
    private var latest: SkewedLatestGenerator
    private var choiceRNG: SeededGenerator
    private var keyRNG: SeededGenerator
    private var valueRNG: SeededGenerator

    init(
        mix: YCSBWorkloads.Mix, records: Int64, nextInsert: Int64, operations: Int, valueSize: Int,
        seed: UInt64
    ) {
        self.mix = mix
        self.operations = operations
        self.valueSize = valueSize
        self.nextInsert = nextInsert
        // YCSB sizes the key space for the inserts it expects (with its fudge factor of 2).
        let expectedNewKeys = Int64(Double(operations) * mix.insert * 2)
        keys = ScrambledZipfianGenerator(min: 0, max: records + expectedNewKeys)
        latest = SkewedLatestGenerator(latest: nextInsert - 1)
        choiceRNG = SeededGenerator(seed: seed)
        keyRNG = SeededGenerator(seed: seed &+ 0x100)
        valueRNG = SeededGenerator(seed: seed &+ 0x200)
    }

    /// YCSB's `nextKeynum`: draw until the id exists.
    private mutating func nextKey() -> Int {
        while true {
            let id =
                mix.latest
                ? latest.next(latest: nextInsert - 1, using: &keyRNG)
                : keys.next(using: &keyRNG)
            if id < nextInsert { return Int(id) }
        }
    }

    mutating func run(_ engine: any KeyValueEngine, checksum: inout Checksum, bytes: inout Int)
        throws
    {
        var key = BenchKey.make(0)
        var value = [UInt8](repeating: 0, count: valueSize)
        for _ in 0..<operations {
            var choice = choiceRNG.nextDouble()
            if choice < mix.read {
                BenchKey.write(nextKey(), into: &key)
                try engine.get(key) { if let found = $0 { checksum.add(value: found) } }
                bytes += valueSize
                continue
            }
            choice -= mix.read
            if choice < mix.update || choice >= mix.update + mix.insert + mix.scan {
                // update, or read-modify-write (F): the read first, then the write
                BenchKey.write(nextKey(), into: &key)
                if mix.readModifyWrite > 0 {
                    try engine.get(key) { if let found = $0 { checksum.add(value: found) } }
                    bytes += valueSize
                }
            } else if choice < mix.update + mix.insert {
                BenchKey.write(Int(nextInsert), into: &key)
                nextInsert += 1
            } else {
                let length = Int(choiceRNG.next() % UInt64(YCSBWorkloads.maxScanLength)) + 1
                try engine.scan(from: nextKey(), count: length) {
                    checksum.add(value: $0)
                    bytes += $0.count
                }
                continue
            }
            valuePool.fill(&value, using: &valueRNG)
            try engine.beginBatch()
            try engine.put(key, value)
            try engine.commitBatch()
            bytes += valueSize
        }
    }
}
