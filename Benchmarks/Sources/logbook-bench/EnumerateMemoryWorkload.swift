import Foundation
import Logbook

/// `peak-rss-enumerate`: the peak RSS of `enumerate(_:batchSize:)` over every Employee of a store
/// (issue 40: memory must stay O(batchSize), not grow with the result), beside a fetch of all of
/// them at once, each in a child process of its own.
///
/// `__child enumerate <dir> <employees> <batch>` and `__child fetch-all <dir> <employees>` open
/// the store, read every Employee (summing salaries, so none is skipped), check the count and
/// print `RESULT peak=… open=…`: the peak RSS, and the RSS once the store was open.
enum EnumerateMemoryWorkload {
    static let batchSize = 1_000

    static var all: [Workload] {
        [
            Workload(
                name: "peak-rss-enumerate", group: "resources",
                summary: "peak RSS of enumerate(batchSize: 1000) over every Employee, vs fetch all"
            ) { context in
                let n = context.sizes.employees
                context.reporter.note(
                    "peak-rss-enumerate: a store of N=\(n) Employees; in a child each: open, then "
                        + "enumerate(FetchDescriptor<Employee>(), batchSize: \(batchSize)), or "
                        + "fetch(FetchDescriptor<Employee>()) of all; peak RSS (VmHWM)")
                try ScratchDirectory.with("enumerate") { directory in
                    _ = try ChildProcess.spawn(["load-objects", "logbook", directory, "\(n)"])
                    let enumerated = try ChildProcess.spawn(
                        ["enumerate", directory, "\(n)", "\(batchSize)"])
                    let fetched = try ChildProcess.spawn(["fetch-all", directory, "\(n)"])
                    func megabytes(_ bytes: Int64) -> String {
                        String(format: "%.1f MB", Double(bytes) / 1_048_576)
                    }
                    for (name, result) in [
                        ("peak-rss-enumerate", enumerated), ("peak-rss-fetch-all", fetched),
                    ] {
                        let peak = result["peak"] ?? 0
                        let heap = (result["anonPeak"] ?? 0) - (result["anonOpen"] ?? 0)
                        context.reporter.size(
                            name, logbook: peak, sqlite: nil,
                            note: "\(n) Employees; \(megabytes(peak - (result["open"] ?? 0))) "
                                + "above the open store's RSS, of which \(megabytes(heap)) "
                                + "anonymous (the rest: segment pages the reads mapped in)")
                    }
                }
            }
        ]
    }

    /// Runs a child task of this workload; `nil` if `arguments` name another.
    static func runChild(_ arguments: [String]) -> Int32? {
        guard let task = arguments.first, task == "enumerate" || task == "fetch-all" else {
            return nil
        }
        do {
            guard arguments.count >= 3, let expected = Int(arguments[2]) else {
                throw BenchError.usage("__child enumerate|fetch-all <dir> <employees> [batch]")
            }
            let url = URL(fileURLWithPath: arguments[1] + "/employees.logbook")
            let container = try ModelContainer(for: [Employee.self], at: url)
            let context = ModelContext(container)
            let opened = ChildProcess.memoryStatus()
            // Anonymous memory (the heap: objects, identifiers), sampled as the objects come;
            // the peak RSS also counts the pages of the segment files the reads map in.
            var anonymous = opened["RssAnon"] ?? 0
            func sample() {
                anonymous = max(anonymous, ChildProcess.memoryStatus()["RssAnon"] ?? 0)
            }
            var count = 0
            var total: Int64 = 0
            if task == "enumerate" {
                let batch = arguments.count > 3 ? Int(arguments[3]) ?? batchSize : batchSize
                try context.enumerate(FetchDescriptor<Employee>(), batchSize: batch) {
                    count += 1
                    total &+= $0.salary
                    if count % 50_000 == 0 { sample() }
                }
            } else {
                let employees = try context.fetch(FetchDescriptor<Employee>())
                sample()
                count = employees.count
                for employee in employees { total &+= employee.salary }
            }
            sample()
            guard count == expected else {
                throw BenchError.setup("\(task) read \(count) Employees, expected \(expected)")
            }
            emit(
                "RESULT peak=\(ChildProcess.memoryStatus()["VmHWM"] ?? 0) "
                    + "open=\(opened["VmRSS"] ?? 0) anonOpen=\(opened["RssAnon"] ?? 0) "
                    + "anonPeak=\(anonymous) sum=\(total)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("child failed: \(error)\n".utf8))
            return 1
        }
    }
}
