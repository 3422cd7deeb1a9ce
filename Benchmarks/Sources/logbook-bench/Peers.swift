import Foundation

/// The engines Logbook is measured against in the engine and YCSB groups (issue 36): SQLite, the
/// store Logbook replaces, and the embedded key/value stores an engineer also weighs. The other
/// groups compare with SQLite alone. `--engines` picks among them.
enum Peers {
    /// Every peer, in the order they run and their columns appear.
    static var all: [any KeyValueEngine.Type] {
        [SQLiteEngine.self, LMDBEngine.self, LevelDBEngine.self, RocksDBEngine.self]
    }

    static var labels: [String] { all.map { $0.label } }

    /// The name of a peer's column in RESULTS.md.
    static func displayName(_ label: String) -> String {
        ["sqlite": "SQLite", "lmdb": "LMDB", "leveldb": "LevelDB", "rocksdb": "RocksDB"][label]
            ?? label
    }

    /// Whether `engine` is one of the rows' peers (not Logbook, not a figure of the machine).
    static func isPeer(_ engine: String) -> Bool { labels.contains(engine) }

    /// The peers named in `list` (comma-separated labels; `all`, or `none` for Logbook alone),
    /// in the order of ``all``.
    static func parse(_ list: String) throws -> [String] {
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if names == ["all"] { return labels }
        if names == ["none"] { return [] }
        if let unknown = names.first(where: { !labels.contains($0) }) {
            throw BenchError.usage(
                "unknown engine \(unknown); --engines takes \(labels.joined(separator: ",")), "
                    + "all or none")
        }
        return labels.filter { names.contains($0) }
    }

    /// The peers to run in the engine and YCSB groups: those `--engines` chose, none under
    /// `LOGBOOK_BENCH_LOGSTORE_ONLY=1`.
    static func chosen(_ options: BenchOptions) -> [any KeyValueEngine.Type] {
        guard !EngineWorkloads.logStoreOnly else { return [] }
        return all.filter { options.engines.contains($0.label) }
    }

    /// The settings line of every engine a workload runs with `durable`, for its note.
    static func settings(_ engines: [any KeyValueEngine.Type], durable: Bool) -> String {
        engines.map { $0.durabilitySummary(durable: durable) }.joined(separator: "; ")
    }
}
