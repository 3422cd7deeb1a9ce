import Foundation

/// The floor under `reopen`, without the engine: the system calls an open of a LogStore store
/// cannot avoid on this machine, whatever it checks. On the files a loaded store of N keys has
/// (segments, hints, `keys.dir`, `LOCK`): list the directory, take and drop the lock, and open,
/// `fstat`, map, touch one page of, unmap and close every file. LMDB's whole open is a handful
/// of such calls on two files, so an open of more files has this much less room.
enum ReopenFloor {
    static var workload: Workload {
        Workload(
            name: "reopen-floor", group: "engine",
            summary: "the system calls of an open of a loaded store's files, without the engine"
        ) { context in
            let n = context.sizes.keys
            try ScratchDirectory.with("reopen-floor") { directory in
                try EngineWorkloads.load(LogStoreEngine.self, directory, context)
                let store = directory + "/kv.logstore"
                var files = 0
                var best = Double.infinity
                for _ in 0..<3 {
                    var opened = 0
                    let seconds = try measure { opened = try touchEveryFile(store) }
                    files = opened
                    best = min(best, seconds)
                }
                try context.expect(
                    "reopen-floor", "machine", "files found", files > 1, equals: true)
                context.reporter.figure(
                    "reopen-floor", engine: "machine", value: best * 1e6,
                    unit: "µs, best of 3: list, lock, then open, fstat, map, touch a page of, "
                        + "unmap and close each of the \(files) files of a LogStore of \(n) "
                        + "keys; no engine")
            }
        }
    }

    /// Does what an open must at least do to each file of the store at `path`; returns how
    /// many files it opened.
    static func touchEveryFile(_ path: String) throws -> Int {
        guard let listing = opendir(path) else {
            throw BenchError.setup("opendir \(path): errno \(errno)")
        }
        var names: [String] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(listing)
        var touched: UInt8 = 0
        for name in names {
            let descriptor = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw BenchError.setup("open \(name): errno \(errno)") }
            defer { close(descriptor) }
            if name == "LOCK" {
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                    throw BenchError.setup("flock \(name): errno \(errno)")
                }
                flock(descriptor, LOCK_UN)
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                throw BenchError.setup("fstat \(name): errno \(errno)")
            }
            let length = Int(info.st_size)
            guard length > 0 else { continue }
            guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0),
                map != MAP_FAILED
            else { throw BenchError.setup("mmap \(name): errno \(errno)") }
            touched ^= map.load(as: UInt8.self)
            munmap(map, length)
        }
        MemoryLatency.blackHole(Int(touched))
        return names.count
    }
}
