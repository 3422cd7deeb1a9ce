/// `compact`: a store of N keys after N random overwrites (half its bytes dead) is compacted.
/// LogStore runs `compact()`; each peer its own analogue (``KeyValueEngine/compaction``: SQLite
/// VACUUM, LMDB a compacting copy, LevelDB and RocksDB a full manual compaction). µs/op is per
/// key of the store, MB/s over the files' size before. File sizes before and after for every
/// engine.
enum CompactWorkload {
    static var all: [Workload] {
        [
            Workload(
                name: "compact", group: "engine", summary: "compact after N random overwrites"
            ) { context in
                let n = context.sizes.keys
                let engines: [any KeyValueEngine.Type] = [LogStoreEngine.self] + context.peers
                context.reporter.note(
                    "compact: load N=\(n), overwrite N random keys, then compact ("
                        + engines.map { "\($0.label): \($0.compaction)" }.joined(separator: "; ")
                        + "); buffered (" + Peers.settings(engines, durable: false) + ")")
                let mark = context.reporter.mark
                var before: [(String, Int64?)] = []
                var after: [(String, Int64?)] = []
                var sums: [Checksum] = []
                for type in engines {
                    try ScratchDirectory.with("compact") { directory in
                        let engine = try type.init(directory: directory, durable: false)
                        let batch = context.sizes.batch
                        let size = context.sizes.valueSize
                        try EngineWorkloads.write(engine, count: n, batch: batch, valueSize: size) {
                            $0 + 1
                        }
                        var rng = SeededGenerator(seed: Seed.access)
                        try EngineWorkloads.write(
                            engine, count: n, batch: batch, valueSize: size, valueSeed: Seed.access
                        ) { _ in rng.id(upTo: n) }
                        try engine.close()
                        let bytes = type.fileBytes(under: directory)
                        before.append((type.label, bytes))
                        let reopened = try type.init(directory: directory, durable: false)
                        let seconds = try measure { try reopened.compact() }
                        context.reporter.timing(
                            "compact", engine: type.label, operations: n, bytes: Int(bytes),
                            seconds: seconds, note: type.compaction)
                        let outcome = try EngineWorkloads.finish(reopened, directory)
                        after.append((type.label, outcome.fileBytes))
                        sums.append(outcome.checksum)
                    }
                }
                guard engines.count > 1 else { return }
                for (peer, sum) in zip(engines.dropFirst(), sums.dropFirst()) {
                    try context.agree(
                        "compact", "records after compaction", logbook: sums[0], peer: peer.label,
                        sum)
                }
                context.reporter.sizes("size-before-compact", before)
                context.reporter.sizes("size-after-compact", after)
                context.reporter.compareWithPeers(since: mark)
            }
        ]
    }
}
