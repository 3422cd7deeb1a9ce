import Foundation

/// Memory is measured in a child process (the suite re-runs itself with the hidden `__child`
/// subcommand), so each engine's peak RSS is its own and not the suite's.
///
/// `__child load <engine> <dir> <keys> <valueSize>` loads ids 1…keys and reports its peak RSS;
/// `__child open <engine> <dir> <keys>` opens the store, gets one key, and reports the
/// anonymous memory the open added (the in-memory index, for LogStore) and its RSS;
/// `__child load-objects <engine> <dir> <employees>` inserts the Employees with one save and
/// reports its peak RSS; `__child open-objects <engine> <dir> <employees>` opens a store of
/// Employees, fetches one, and reports its RSS.
/// A child prints one `RESULT name=value …` line; the values are bytes.
enum ChildProcess {
    /// Runs the child subcommand in this process; returns the exit status.
    static func runChild(_ arguments: [String]) -> Int32 {
        if let status = EnumerateMemoryWorkload.runChild(arguments) { return status }
        if let status = MigrationWorkloads.runChild(arguments) { return status }
        do {
            guard arguments.count >= 4, let keys = Int(arguments[3]) else {
                throw BenchError.usage("__child load|open <engine> <dir> <keys> [valueSize]")
            }
            if arguments[0].hasSuffix("-objects") {
                guard let type = ObjectWorkloads.stores.first(where: { $0.label == arguments[1] })
                else {
                    throw BenchError.usage("unknown object store \(arguments[1])")
                }
                if arguments[0] == "load-objects" {
                    let store = try type.init(directory: arguments[2])
                    try store.insertAll(EmployeeData.generate(count: keys))
                    try store.close()
                    emit("RESULT peak=\(memoryStatus()["VmHWM"] ?? 0)")
                    return 0
                }
                let store = try type.init(directory: arguments[2])
                guard try store.fetchFingerprint(id: Int64(max(keys / 2, 1))) != nil else {
                    throw BenchError.setup("the reopened store lost an Employee")
                }
                let status = memoryStatus()
                emit(
                    "RESULT rss=\(status["VmRSS"] ?? 0) rssAnon=\(status["RssAnon"] ?? 0) "
                        + "peak=\(status["VmHWM"] ?? 0)")
                try store.close()
                return 0
            }
            let type: any KeyValueEngine.Type =
                arguments[1] == SQLiteEngine.label ? SQLiteEngine.self : LogStoreEngine.self
            let directory = arguments[2]
            switch arguments[0] {
            case "load":
                let valueSize = arguments.count > 4 ? Int(arguments[4]) ?? 40 : 40
                let engine = try type.init(directory: directory, durable: false)
                try EngineWorkloads.write(engine, count: keys, batch: 1000, valueSize: valueSize) {
                    $0 + 1
                }
                try engine.close()
                let status = memoryStatus()
                print("RESULT peak=\(status["VmHWM"] ?? 0)")
            case "open":
                let before = memoryStatus()
                let engine = try type.init(directory: directory, durable: false)
                var found = 0
                try engine.get(BenchKey.make(max(keys / 2, 1))) { if $0 != nil { found += 1 } }
                let after = memoryStatus()
                guard found == 1 else { throw BenchError.setup("the reopened store lost a key") }
                let index = (engine as? LogStoreEngine)?.store.indexMemoryBytes ?? 0
                print(
                    "RESULT anon=\((after["RssAnon"] ?? 0) - (before["RssAnon"] ?? 0)) "
                        + "rss=\(after["VmRSS"] ?? 0) rssAnon=\(after["RssAnon"] ?? 0) "
                        + "peak=\(after["VmHWM"] ?? 0) index=\(index)")
                try engine.close()
            default:
                throw BenchError.usage("unknown child task \(arguments[0])")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("child failed: \(error)\n".utf8))
            return 1
        }
    }

    /// Runs `logbook-bench __child <arguments>` and returns its `RESULT` values.
    static func spawn(_ arguments: [String]) throws -> [String: Int64] {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["__child"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.setup(
                "child \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RESULT ") })
        else {
            throw BenchError.setup("child \(arguments.joined(separator: " ")) printed no RESULT")
        }
        var values: [String: Int64] = [:]
        for field in line.dropFirst(7).split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int64(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    /// `/proc/self/status` memory lines (VmRSS, VmHWM, RssAnon, …) in bytes.
    static func memoryStatus() -> [String: Int64] {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return [:]
        }
        var values: [String: Int64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let fields = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count == 2, fields[1] == "kB", let kib = Int64(fields[0]) {
                values[String(parts[0])] = kib * 1024
            }
        }
        return values
    }
}
