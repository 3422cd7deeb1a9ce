/// `compact`: a store of N keys after N random overwrites (half its bytes dead) is compacted.
/// LogStore runs `compact()`; SQLite's analogue is VACUUM (it rewrites the file). µs/op is per
/// key of the store, MB/s over the files' size before. File sizes before and after for both.
enum CompactWorkload {
    static var all: [Workload] {
        [
            Workload(
                name: "compact", group: "engine", summary: "compact after N random overwrites"
            ) { context in
                let n = context.sizes.keys
                context.reporter.note(
                    "compact: load N=\(n), overwrite N random keys, then compact "
                        + "(SQLite: VACUUM, its analogue)")
                var before: [String: Int64] = [:]
                var after: [String: Int64] = [:]
                var sums: [String: Checksum] = [:]
                let engines: [any KeyValueEngine.Type] =
                    EngineWorkloads.logStoreOnly
                    ? [LogStoreEngine.self] : [LogStoreEngine.self, SQLiteEngine.self]
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
                        before[type.label] = ScratchDirectory.bytes(under: directory)
                        let reopened = try type.init(directory: directory, durable: false)
                        let what: String
                        let seconds: Double
                        if let sqlite = reopened as? SQLiteEngine {
                            what = "VACUUM"
                            seconds = try measure { try sqlite.vacuum() }
                        } else {
                            let logStore = (reopened as! LogStoreEngine).store
                            what = "LogStore.compact()"
                            seconds = try measure { try logStore.compact() }
                        }
                        context.reporter.timing(
                            "compact", engine: type.label, operations: n,
                            bytes: Int(before[type.label] ?? 0), seconds: seconds, note: what)
                        let outcome = try EngineWorkloads.finish(reopened, directory)
                        after[type.label] = outcome.fileBytes
                        sums[type.label] = outcome.checksum
                    }
                }
                guard !EngineWorkloads.logStoreOnly else { return }
                try context.agree(
                    "compact", "records after compaction", logbook: sums[LogStoreEngine.label],
                    sqlite: sums[SQLiteEngine.label])
                context.reporter.size(
                    "size-before-compact", logbook: before[LogStoreEngine.label],
                    sqlite: before[SQLiteEngine.label],
                    ours: LogStoreEngine.label)
                context.reporter.size(
                    "size-after-compact", logbook: after[LogStoreEngine.label],
                    sqlite: after[SQLiteEngine.label],
                    ours: LogStoreEngine.label)
            }
        ]
    }
}
