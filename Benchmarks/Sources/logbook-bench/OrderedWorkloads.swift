import LogStore

/// Ordered keyspaces (issue 16): what declaring a keyspace ordered costs at load, at open and
/// in memory, and what a short range scan costs. LogStore only (SQLite's side is YCSB E).
enum OrderedWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "ordered", group: "ordered",
                summary: "fill, reopen and memory of an ordered keyspace against an unordered one"
            ) { context in try run(context) }
        ]
    }

    static func options(ordered: Bool) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.durability = .buffered
        options.autoCompactionDeadFraction = nil
        if ordered { options.orderedKeyspaces = ["kv"] }
        return options
    }

    static func run(_ context: BenchContext) throws {
        let n = context.sizes.keys
        let valueSize = context.sizes.valueSize
        context.reporter.note(
            "ordered: N=\(n) puts in random order, \(BenchKey.size)-byte keys, \(valueSize)-byte "
                + "values, batches of \(context.sizes.batch), into keyspace kv declared ordered "
                + "or not; reopen = open + one get, best of 3, alternating; scans of 50 keys "
                + "from random starts")
        var ids = Array(0..<n)
        var rng = SeededGenerator(seed: Seed.access)
        ids.shuffle(using: &rng)
        try ScratchDirectory.with("ordered") { directory in
            let paths = [directory + "/plain.logstore", directory + "/ordered.logstore"]
            for (index, path) in paths.enumerated() {
                let store = try LogStore(path: path, options: options(ordered: index == 1))
                var value = [UInt8](repeating: 0, count: valueSize)
                var key = BenchKey.make(0)
                var valueRNG = SeededGenerator(seed: Seed.access &+ 1)
                let seconds = try measure {
                    var batch = WriteBatch()
                    for (i, id) in ids.enumerated() {
                        BenchKey.write(id, into: &key)
                        valuePool.fill(&value, using: &valueRNG)
                        batch.put(value, for: key, in: "kv")
                        if (i + 1) % context.sizes.batch == 0 || i == n - 1 {
                            try store.commit(batch)
                            batch.removeAll()
                        }
                    }
                }
                context.reporter.timing(
                    index == 1 ? "ordered-fill" : "unordered-fill", engine: "logstore",
                    operations: n, bytes: n * (BenchKey.size + valueSize), seconds: seconds)
                try store.close()
            }
            var best = [Double.infinity, .infinity]
            var firstScan = Double.infinity
            var memory = (index: 0, order: 0)
            let probe = BenchKey.make(n / 2)
            for _ in 0..<3 {
                for (index, path) in paths.enumerated() {
                    var store: LogStore?
                    let seconds = try measure {
                        let opened = try LogStore(path: path, options: options(ordered: index == 1))
                        _ = try opened.get(probe, in: "kv")
                        store = opened
                    }
                    best[index] = min(best[index], seconds)
                    if index == 1, let store {
                        // The first ordered iteration builds the key order.
                        firstScan = min(
                            firstScan,
                            try measure {
                                try store.forEach(in: "kv", from: probe, limit: 1) { _, _ in }
                            })
                        memory = (store.indexMemoryBytes, store.orderMemoryBytes)
                    }
                    try store?.close()
                }
            }
            context.reporter.timing(
                "unordered-reopen", engine: "logstore", operations: 1, bytes: 0, seconds: best[0],
                note: "\(n) keys, open + 1 get, best of 3")
            context.reporter.timing(
                "ordered-reopen", engine: "logstore", operations: 1, bytes: 0, seconds: best[1],
                note: "\(n) keys, open + 1 get, best of 3")
            context.reporter.timing(
                "ordered-first-scan", engine: "logstore", operations: 1, bytes: 0,
                seconds: firstScan, note: "the first ordered scan after open builds the order")
            context.reporter.figure(
                "ordered-memory", engine: "logstore", value: Double(memory.order) / Double(n),
                unit: "bytes a key for the key order (hash index: "
                    + "\(String(format: "%.1f", Double(memory.index) / Double(n))) bytes a key)")
            // Short scans.
            let store = try LogStore(path: paths[1], options: options(ordered: true))
            let scans = min(100_000, n)
            var read = 0
            var start = BenchKey.make(0)
            let seconds = try measure {
                for _ in 0..<scans {
                    BenchKey.write(Int(rng.next() % UInt64(n)), into: &start)
                    try store.forEach(in: "kv", from: start, limit: 50) { _, value in
                        read &+= value.count
                    }
                }
            }
            context.reporter.timing(
                "ordered-scan50", engine: "logstore", operations: scans, bytes: read,
                seconds: seconds, note: "50 keys from a random start")
            try store.close()
        }
    }
}
