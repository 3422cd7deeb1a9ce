/// The Employees of the Objects workloads (issue 6, "Data"): ids 1…N in ascending order, a name
/// of 10–14 letters (capitalised), one of eight designations chosen uniformly, and a salary
/// uniform in 30,000…200,000.
struct EmployeeRow: Sendable, Equatable {
    var id: Int64
    var name: String
    var designation: String
    var salary: Int64

    /// A number that changes with any field but the designation: what a fetch check compares.
    var fingerprint: Int64 { salary &* 31 &+ Int64(name.utf8.count) &+ Int64(name.utf8.first ?? 0) }

    /// Bytes of the row's values, for MB/s.
    var payloadBytes: Int { name.utf8.count + designation.utf8.count + 16 }
}

enum EmployeeData {
    static let designations = [
        "Engineer", "Manager", "Analyst", "Designer", "Director", "Accountant", "Consultant",
        "Technician",
    ]

    /// The designation the predicate fetches select (about N/8 rows).
    static let fetchedDesignation = "Engineer"
    /// The designations the batch update raises and the batch delete removes (about N/8 each).
    static let raisedDesignation = "Analyst"
    static let batchDeletedDesignation = "Technician"

    /// Employees 1…`count`, the same for every run.
    static func generate(count: Int) -> [EmployeeRow] {
        var rng = SeededGenerator(seed: Seed.data)
        var rows = [EmployeeRow]()
        rows.reserveCapacity(count)
        for id in 1...max(count, 1) where id <= count {
            let length = Int.random(in: 10...14, using: &rng)
            var scalars = [UInt8]()
            scalars.reserveCapacity(length)
            scalars.append(UInt8(65 + rng.next() % 26))
            for _ in 1..<length { scalars.append(UInt8(97 + rng.next() % 26)) }
            rows.append(
                EmployeeRow(
                    id: Int64(id), name: String(decoding: scalars, as: UTF8.self),
                    designation: designations[Int.random(in: 0..<8, using: &rng)],
                    salary: Int64.random(in: 30_000...200_000, using: &rng)))
        }
        return rows
    }

    /// `count` distinct ids from 1…`n`, drawn uniformly with `seed` (a partial Fisher–Yates).
    static func distinctIDs(_ count: Int, from n: Int, seed: UInt64) -> [Int64] {
        var rng = SeededGenerator(seed: seed)
        var ids = (1...max(n, 1)).map { Int64($0) }
        let picked = min(count, n)
        for index in 0..<picked {
            ids.swapAt(index, Int.random(in: index..<n, using: &rng))
        }
        return Array(ids[0..<picked])
    }
}

/// What a predicate fetch sorted by salary returned, in a form both engines can compare:
/// ties in salary may come back in any order, so ids are summed, salaries hashed in order.
struct FetchSummary: Equatable, CustomStringConvertible {
    var count = 0
    var idSum: Int64 = 0
    var salaryHash: UInt64 = 0
    var sorted = true
    private var lastSalary = Int64.min

    mutating func add(id: Int64, salary: Int64) {
        count += 1
        idSum &+= id
        salaryHash = (salaryHash &* 0x100_0000_01B3) ^ UInt64(bitPattern: salary)
        if salary < lastSalary { sorted = false }
        lastSalary = salary
    }

    var description: String {
        "\(count) objects, id sum \(idSum), salary hash \(salaryHash)\(sorted ? "" : ", NOT sorted")"
    }
}
