import Foundation

/// The resources group: peak RSS and index memory per key, each engine in its own child.
enum ResourceWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "memory", group: "resources",
                summary: "peak RSS of a load, memory of an open store"
            ) { context in
                let n = context.sizes.keys
                context.reporter.note(
                    "memory: each engine in a child process; load N=\(n) keys (peak RSS), then open "
                        + "the store and get one key (RSS, anonymous bytes the open added per key); "
                        + "insert and save the Employees (peak RSS)")
                var peak: [String: Int64] = [:]
                var open: [String: Int64] = [:]
                var openAnon: [String: Int64] = [:]
                for type in [LogStoreEngine.self, SQLiteEngine.self] as [any KeyValueEngine.Type] {
                    try ScratchDirectory.with("memory") { directory in
                        let load = try ChildProcess.spawn(
                            ["load", type.label, directory, "\(n)", "\(context.sizes.valueSize)"])
                        let opened = try ChildProcess.spawn(["open", type.label, directory, "\(n)"])
                        peak[type.label] = load["peak"]
                        open[type.label] = opened["rss"]
                        openAnon[type.label] = opened["rssAnon"]
                        context.reporter.figure(
                            "index-bytes-per-key", engine: type.label,
                            value: Double(opened["anon"] ?? 0) / Double(n),
                            unit: "anonymous bytes per key added by open (RssAnon)")
                        if let index = opened["index"], index > 0 {
                            context.reporter.figure(
                                "index-bytes-per-key-counted", engine: type.label,
                                value: Double(index) / Double(n),
                                unit:
                                    "bytes per key, as LogStore.indexMemoryBytes counts"
                            )
                        }
                    }
                }
                var objectsPeak: [String: Int64] = [:]
                for type in ObjectWorkloads.stores {
                    try ScratchDirectory.with("memory") { directory in
                        let load = try ChildProcess.spawn(
                            ["load-objects", type.label, directory, "\(context.sizes.employees)"])
                        objectsPeak[type.label] = load["peak"]
                    }
                }
                context.reporter.size(
                    "peak-rss-load-objects", logbook: objectsPeak["logbook"],
                    sqlite: objectsPeak[SQLiteEmployees.label],
                    note: "\(context.sizes.employees) Employees generated, inserted, saved once")
                context.reporter.size(
                    "peak-rss-load", logbook: peak[LogStoreEngine.label],
                    sqlite: peak[SQLiteEngine.label], ours: LogStoreEngine.label)
                context.reporter.size(
                    "rss-open-store", logbook: open[LogStoreEngine.label],
                    sqlite: open[SQLiteEngine.label], ours: LogStoreEngine.label,
                    note: "VmRSS: includes mapped file pages the open touched")
                context.reporter.size(
                    "rss-anon-open-store", logbook: openAnon[LogStoreEngine.label],
                    sqlite: openAnon[SQLiteEngine.label], ours: LogStoreEngine.label,
                    note: "RssAnon: heap and other anonymous memory only")
            }
        ]
    }
}
