/// What `employees report` prints: the seed's questions — how many employees, what they are
/// paid in total and on average — for all of them, per company and per designation.
struct EmployeeReport: Sendable, Equatable {
    /// One group's numbers.
    struct Line: Sendable, Equatable {
        /// The company's or designation's name; `nil` for employees without a company.
        var group: String?
        var headcount: Int
        var totalSalary: Int64
        /// `nil` for a group without employees (only the line of all employees can be empty).
        var averageSalary: Double?
    }

    var all: Line
    /// Largest payroll first.
    var byCompany: [Line]
    /// Largest payroll first.
    var byDesignation: [Line]

    /// The report of `employees`, computed from the records themselves (the Logbook repository
    /// asks the store's aggregates instead).
    /// - Throws: ``EmployeesError/store(_:)`` for a total past 64 bits.
    init(_ employees: [EmployeeRecord]) throws(EmployeesError) {
        func lines(_ key: (EmployeeRecord) -> String?) throws(EmployeesError) -> [Line] {
            var groups: [String?: [EmployeeRecord]] = [:]
            for employee in employees { groups[key(employee), default: []].append(employee) }
            var result: [Line] = []
            for (group, members) in groups {
                var total: Int64 = 0
                for member in members {
                    let (sum, overflow) = total.addingReportingOverflow(member.salary)
                    if overflow { throw .store(EmployeeReport.overflow) }
                    total = sum
                }
                result.append(
                    Line(
                        group: group, headcount: members.count, totalSalary: total,
                        averageSalary: Double(total) / Double(members.count)))
            }
            return Self.ordered(result)
        }
        all =
            try lines { _ in "" }.first
            ?? Line(group: nil, headcount: 0, totalSalary: 0, averageSalary: nil)
        all.group = nil
        byCompany = try lines { $0.company?.name }
        byDesignation = try lines { $0.designation }
    }

    init(all: Line, byCompany: [Line], byDesignation: [Line]) {
        self.all = all
        self.byCompany = Self.ordered(byCompany)
        self.byDesignation = Self.ordered(byDesignation)
    }

    /// Why a report cannot be made when a total does not fit.
    static let overflow = "a total salary does not fit in a 64-bit integer"

    /// Largest total first; ties by name, no company last.
    private static func ordered(_ lines: [Line]) -> [Line] {
        lines.sorted { a, b in
            if a.totalSalary != b.totalSalary { return a.totalSalary > b.totalSalary }
            switch (a.group, b.group) {
            case (let x?, let y?): return x < y
            case (_?, nil): return true
            default: return false
            }
        }
    }
}
