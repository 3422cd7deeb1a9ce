import Foundation
import Logbook
import TestSupport
import Testing

/// Measures the 1,000,000-Employee workloads. Off unless `LOGBOOK_PERF=1`; run in
/// release: `LOGBOOK_PERF=1 swift test -c release --filter PerformanceProbe`. Prints figures;
/// asserts nothing about time. `LOGBOOK_PERF_DIR` keeps the store (for a separate RSS run with
/// `LOGBOOK_PERF_OPEN=1`).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["LOGBOOK_PERF"] == "1"), .serialized)
struct PerformanceProbe {
    static let count =
        Int(ProcessInfo.processInfo.environment["LOGBOOK_PERF_COUNT"] ?? "") ?? 1_000_000
    static let designations = ["Engineer", "Manager", "Designer", "Analyst", "Intern"]

    /// Wall-clock seconds of `body`; also prints the process CPU seconds (a fairer figure on
    /// a machine shared with other work).
    private func seconds(_ body: () throws -> Void) rethrows -> Double {
        let cpuStart = cpuSeconds()
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        print("  (cpu \(Int((cpuSeconds() - cpuStart) * 1000)) ms)", terminator: " ")
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    private func rssMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        let kb = Double(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        return kb / 1024
    }

    private func directoryMB(_ path: String) -> Double {
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
        let bytes = files.reduce(0) { sum, file in
            sum
                + (((try? FileManager.default.attributesOfItem(atPath: path + "/" + file))?[.size]
                    as? Int) ?? 0)
        }
        return Double(bytes) / 1_048_576
    }

    @Test func workloads() throws {
        let env = ProcessInfo.processInfo.environment
        let path =
            env["LOGBOOK_PERF_DIR"] ?? TemporaryDirectory("logbook-perf").child("employees.logbook")
        let url = URL(fileURLWithPath: path)
        let n = Self.count
        if env["LOGBOOK_PERF_OPEN"] == "1" {
            let before = rssMB()
            var container: ModelContainer? = try ModelContainer(for: [Employee.self], at: url)
            let count = try container!.store.count(in: "Employee")
            print(
                "open          : RSS \(rssMB()) MB with \(count) objects (process before open: \(before) MB)"
            )
            if env["LOGBOOK_PERF_SCANS"] == "1" {
                var sum = 0
                let tt = try seconds {
                    try container!.store.forEach(in: "Employee") { _, value in
                        sum &+= Int(value.last ?? 0)
                    }
                }
                print("engine floor  : forEach \(Int(tt * 1000)) ms (touching each value)")
                let tl = try seconds {
                    try container!.store.forEach(in: "Employee") { _, value in sum &+= value.count }
                }
                print("engine floor  : forEach \(Int(tl * 1000)) ms (lengths only)")
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 << 20, alignment: 8)
                let pks = UnsafeMutablePointer<UInt64>.allocate(capacity: 2_000_000)
                var used = 0
                var records = 0
                let tcopy = try seconds {
                    try container!.store.forEach(in: "Employee") { key, value in
                        pks[records] = key.loadUnaligned(as: UInt64.self)
                        records += 1
                        (buffer + used).copyMemory(from: value.baseAddress!, byteCount: value.count)
                        used += value.count
                    }
                }
                print(
                    "engine floor  : forEach \(Int(tcopy * 1000)) ms (copying every value, \(used) bytes)"
                )
                buffer.deallocate()
                pks.deallocate()
                for _ in 0..<5 {
                    let t = try seconds {
                        _ = try ModelContext(container!).fetchCount(
                            FetchDescriptor<Employee>(
                                predicate: #Predicate { $0.designation == "Engineer" }))
                    }
                    print("count scan    : \(t * 1000) ms")
                }
                for _ in 0..<3 {
                    let t = try seconds {
                        _ = try ModelContext(container!).fetch(
                            FetchDescriptor<Employee>(
                                predicate: #Predicate { $0.designation == "Engineer" },
                                sortBy: [SortDescriptor(\.salary)]))
                    }
                    print("fetch         : \(t * 1000) ms")
                }
            }
            container = nil
            return
        }
        try? FileManager.default.removeItem(at: url)
        do {
            let rawPath = path + ".raw"
            try? FileManager.default.removeItem(atPath: rawPath)
            let raw = try LogStore(path: rawPath)
            var batch = WriteBatch()
            let tb = seconds {
                for i in 0..<n {
                    let value = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 30)
                    batch.put(
                        value, for: withUnsafeBytes(of: UInt64(i + 1).bigEndian) { Array($0) },
                        in: "Employee")
                }
            }
            let tc = try seconds { try raw.commit(batch) }
            print(
                "engine floor  : build batch \(Int(tb * 1000)) ms, commit \(Int(tc * 1000)) ms for \(n) puts of 30 bytes"
            )
            try raw.close()
            try? FileManager.default.removeItem(atPath: rawPath)
        }
        var container: ModelContainer? = try ModelContainer(for: [Employee.self], at: url)
        let t1 = try seconds {
            let context = ModelContext(container!)
            var employees: [Employee] = []
            employees.reserveCapacity(n)
            let tc = seconds {
                for i in 0..<n {
                    employees.append(
                        Employee(
                            name: "Employee \(i)",
                            designation: Self.designations[i % Self.designations.count],
                            salary: Int64(1_000_000 + (i * 7919) % 2_000_000)))
                }
            }
            print("construct \(Int(tc * 1000)) ms")
            let ti = seconds { for e in employees { context.insert(e) } }
            print("insert \(Int(ti * 1000)) ms")
            employees = []
            let ts = try seconds { try context.save() }
            print("save \(Int(ts * 1000)) ms")
        }
        print("insert+save   : \(t1 * 1000) ms for \(n)")
        print("files         : \(directoryMB(path)) MB after the insert")

        let store = container!.store
        var scanned = 0
        let tf = try seconds {
            try store.forEach(in: "Employee") { _, value in scanned &+= value.count }
        }
        print("engine floor  : forEach \(Int(tf * 1000)) ms over \(n) records (lengths only)")
        let tt = try seconds {
            try store.forEach(in: "Employee") { _, value in scanned &+= Int(value.last ?? 0) }
        }
        print(
            "engine floor  : forEach \(Int(tt * 1000)) ms over \(n) records (touching each value)")
        var got = 0
        let tg = try seconds {
            for k in 0..<100_000 {
                let key = withUnsafeBytes(of: UInt64(1 + (k * 7919) % n).bigEndian) { Array($0) }
                got &+= try store.get(key, in: "Employee")?.count ?? 0
            }
        }
        print("engine floor  : get \(Int(tg / 100_000 * 1e9)) ns/op")

        var ids: [PersistentIdentifier] = []
        ids.reserveCapacity(100_000)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            ids.append(
                PersistentIdentifier(
                    entityName: "Employee",
                    primaryKey: UInt64.random(in: 1...UInt64(n), using: &rng)))
        }
        let fresh = ModelContext(container!)
        var found = 0
        let t2 = try seconds {
            for id in ids where try fresh.model(for: id, as: Employee.self) != nil { found += 1 }
        }
        print(
            "get by id     : \(t2 / Double(ids.count) * 1e9) ns/op (one fresh context, \(found) found)"
        )
        let t2b = try seconds {
            for id in ids.prefix(10_000)
            where try ModelContext(container!).model(for: id, as: Employee.self) != nil {
                found += 1
            }
        }
        print("get by id     : \(t2b / 10_000 * 1e9) ns/op (a new context per fetch)")

        let engineerCount = try seconds {
            _ = try ModelContext(container!).fetchCount(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" }))
        }
        print("predicate     : \(engineerCount * 1000) ms for the count alone (scan + filter)")
        let engineerIDs = try seconds {
            _ = try ModelContext(container!).fetchIdentifiers(
                FetchDescriptor<Employee>(
                    predicate: #Predicate { $0.designation == "Engineer" },
                    sortBy: [SortDescriptor(\.salary)]))
        }
        print(
            "predicate     : \(engineerIDs * 1000) ms for sorted identifiers (scan + filter + sort)"
        )
        var engineers: [Employee] = []
        let t3 = try seconds {
            engineers = try ModelContext(container!).fetch(
                FetchDescriptor<Employee>(
                    predicate: #Predicate { $0.designation == "Engineer" },
                    sortBy: [SortDescriptor(\.salary)]))
        }
        print("predicate     : \(t3 * 1000) ms, \(engineers.count) engineers sorted by salary")
        engineers = []

        let t4 = try seconds {
            let context = ModelContext(container!)
            var descriptor = FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Manager" })
            descriptor.fetchLimit = 100_000
            var fetched: [Employee] = []
            let tf = try seconds { fetched = try context.fetch(descriptor) }
            let tm = seconds { for employee in fetched { employee.salary += 1 } }
            let ts = try seconds { try context.save() }
            print(
                "fetch \(Int(tf * 1000)) ms, change \(Int(tm * 1000)) ms, save \(Int(ts * 1000)) ms"
            )
        }
        print("update 100k   : \(t4 * 1000) ms (fetch + change + save)")

        let t5 = try seconds {
            let context = ModelContext(container!)
            var descriptor = FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Intern" })
            descriptor.fetchLimit = 100_000
            var fetched: [Employee] = []
            let tf = try seconds { fetched = try context.fetch(descriptor) }
            let tm = seconds { for employee in fetched { context.delete(employee) } }
            let ts = try seconds { try context.save() }
            print(
                "fetch \(Int(tf * 1000)) ms, delete \(Int(tm * 1000)) ms, save \(Int(ts * 1000)) ms"
            )
        }
        print("delete 100k   : \(t5 * 1000) ms (fetch + delete + save)")
        print("RSS now       : \(rssMB()) MB (this process, after the workloads)")
        try container?.close()
        container = nil
        print("files         : \(directoryMB(path)) MB after updates and deletes")
    }
}
