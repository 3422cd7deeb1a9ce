import Foundation
import Logbook
import Testing

@testable import employees

/// Makes a store the app opens, with many employees, straight through Logbook (one save per
/// 20,000 employees instead of one per `employees add`): for the tests that need a store
/// larger than a memory limit, or than a screen.
///
/// Employee `n` (1-based, its primary key) is named ``name(_:nameBytes:)``, has designation
/// `Staff`, salary `n`, and belongs to company `n % companies` (company 0 is none).
enum LargeStore {
    static let companyNames = ["Acme", "Globex", "Initech", "Umbrella"]

    /// The name of employee `n`: `Person n`, padded with `x` to `nameBytes` bytes if longer.
    static func name(_ n: Int, nameBytes: Int = 0) -> String {
        let name = "Person \(n)"
        // The filler from bytes: appending a string of "x" per byte was seconds of the large
        // store's build in a debug build.
        return name.count >= nameBytes
            ? name
            : name + " "
                + String(
                    decoding: [UInt8](
                        repeating: UInt8(ascii: "x"), count: nameBytes - name.count - 1),
                    as: UTF8.self)
    }

    /// The company of employee `n` (an index into ``companyNames``), if any.
    static func company(of n: Int) -> Int? {
        let index = n % (companyNames.count + 1)
        return index == 0 ? nil : index - 1
    }

    static func make(at path: String, employees count: Int, nameBytes: Int = 0) throws {
        let container = try ModelContainer(
            for: [employees.Employee.self, employees.Company.self],
            at: URL(fileURLWithPath: path))
        defer { try? container.close() }
        var context = ModelContext(container)
        let companies = companyNames.map { name in
            let company = employees.Company()
            company.name = name
            context.insert(company)
            return company
        }
        try context.save()
        var start = 1
        while start <= count {
            context = ModelContext(container)
            let local = try companies.map {
                try context.model(for: $0.persistentModelID, as: employees.Company.self)!
            }
            for n in start..<min(start + 20_000, count + 1) {
                let employee = employees.Employee()
                employee.name = name(n, nameBytes: nameBytes)
                employee.designation = "Staff"
                employee.salary = Int64(n)
                context.insert(employee)
                employee.company = company(of: n).map { local[$0] }
            }
            try context.save()
            start += 20_000
        }
    }
}

/// Makes a large store for measuring, when asked:
/// `EMPLOYEES_LARGE_STORE=/path/store EMPLOYEES_LARGE_COUNT=1000000 swift test --filter LargeStoreMaker`
/// (a new store of that many employees, as ``LargeStore`` describes them). Skipped otherwise.
@Suite struct LargeStoreMaker {
    static let path = ProcessInfo.processInfo.environment["EMPLOYEES_LARGE_STORE"]

    @Test(.enabled(if: path != nil)) func makeTheStoreAsked() throws {
        let count =
            ProcessInfo.processInfo.environment["EMPLOYEES_LARGE_COUNT"].flatMap { Int($0) }
            ?? 1_000_000
        try LargeStore.make(at: try #require(Self.path), employees: count)
    }
}
