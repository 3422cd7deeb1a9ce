import Foundation
import Logbook
import Testing
import TestSupport

/// Measures the 1,000,000-Employee workloads. Off unless `LOGBOOK_PERF=1`; run in
/// release: `LOGBOOK_PERF=1 swift test -c release --filter PerformanceProbe`. Prints figures;
/// asserts nothing about time. `LOGBOOK_PERF_DIR` keeps the store (for a separate RSS run with
/// `LOGBOOK_PERF_OPEN=1`).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["LOGBOOK_PERF"] == "1"), .serialized)
struct PerformanceProbe {
    static let count = Int(ProcessInfo.processInfo.environment["LOGBOOK_PERF_COUNT"] ?? "") ?? 1_000_000
    static let designations = ["Engineer", "Manager", "Designer", "Analyst", "Intern"]

    private func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
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
            sum + (((try? FileManager.default.attributesOfItem(atPath: path + "/" + file))?[.size] as? Int) ?? 0)
        }
        return Double(bytes) / 1_048_576
    }

    @Test func workloads() throws {
        let env = ProcessInfo.processInfo.environment
        let path = env["LOGBOOK_PERF_DIR"] ?? TemporaryDirectory("logbook-perf").child("employees.logbook")
        let url = URL(fileURLWithPath: path)
        let n = Self.count
        if env["LOGBOOK_PERF_OPEN"] == "1" {
            let before = rssMB()
            var container: ModelContainer? = try ModelContainer(for: [Employee.self], at: url)
            let count = try ModelContext(container!).fetchCount(FetchDescriptor<Employee>())
            print("open          : RSS \(rssMB()) MB with \(count) objects (process before open: \(before) MB)")
            container = nil
            return
        }
        try? FileManager.default.removeItem(at: url)
        var container: ModelContainer? = try ModelContainer(for: [Employee.self], at: url)
        let t1 = try seconds {
            let context = ModelContext(container!)
            for i in 0..<n {
                context.insert(
                    Employee(
                        name: "Employee \(i)", designation: Self.designations[i % Self.designations.count],
                        salary: Int64(1_000_000 + (i * 7919) % 2_000_000)))
            }
            try context.save()
        }
        print("insert+save   : \(t1 * 1000) ms for \(n)")
        print("files         : \(directoryMB(path)) MB after the insert")

        var ids: [PersistentIdentifier] = []
        ids.reserveCapacity(100_000)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100_000 { ids.append(PersistentIdentifier(entityName: "Employee", primaryKey: UInt64.random(in: 1...UInt64(n), using: &rng))) }
        let fresh = ModelContext(container!)
        var found = 0
        let t2 = try seconds {
            for id in ids where try fresh.model(for: id, as: Employee.self) != nil { found += 1 }
        }
        print("get by id     : \(t2 / Double(ids.count) * 1e9) ns/op (one fresh context, \(found) found)")
        let t2b = try seconds {
            for id in ids.prefix(10_000) where try ModelContext(container!).model(for: id, as: Employee.self) != nil { found += 1 }
        }
        print("get by id     : \(t2b / 10_000 * 1e9) ns/op (a new context per fetch)")

        var engineers: [Employee] = []
        let t3 = try seconds {
            engineers = try ModelContext(container!).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" }, sortBy: [SortDescriptor(\.salary)]))
        }
        print("predicate     : \(t3 * 1000) ms, \(engineers.count) engineers sorted by salary")
        engineers = []

        let t4 = try seconds {
            let context = ModelContext(container!)
            var descriptor = FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Manager" })
            descriptor.fetchLimit = 100_000
            for employee in try context.fetch(descriptor) { employee.salary += 1 }
            try context.save()
        }
        print("update 100k   : \(t4 * 1000) ms (fetch + change + save)")

        let t5 = try seconds {
            let context = ModelContext(container!)
            var descriptor = FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Intern" })
            descriptor.fetchLimit = 100_000
            for employee in try context.fetch(descriptor) { context.delete(employee) }
            try context.save()
        }
        print("delete 100k   : \(t5 * 1000) ms (fetch + delete + save)")
        print("RSS now       : \(rssMB()) MB (this process, after the workloads)")
        try container?.close()
        container = nil
        print("files         : \(directoryMB(path)) MB after updates and deletes")
    }
}
