import Testing

@testable import employees

@Suite struct EmployeeFilterTests {
    private let ann = EmployeeRecord(
        id: "E1", name: "Ann", designation: "Engineer", salary: 2_000_000)

    private func matches(_ filter: String) throws(EmployeesError) -> Bool {
        try EmployeeFilter(parsing: filter).matches(ann)
    }

    @Test func comparisons() throws {
        #expect(try matches("salary > 1000000"))
        #expect(try matches("salary >= 2_000_000"))
        #expect(try !matches("salary < 2000000"))
        #expect(try matches("name == 'Ann'"))
        #expect(try matches("designation != \"Support\""))
    }

    @Test func andBindsTighterThanOr() throws {
        #expect(try matches("salary > 5000000 || name == 'Ann' && salary > 1"))
        #expect(try !matches("salary > 5000000 AND name == 'Ann' or salary < 1"))
    }

    @Test(arguments: [
        "age > 3", "salary >", "salary > 'x'", "name == Ann", "salary ~ 3", "name == 'Ann",
        "salary > 1 salary",
    ])
    func malformedFiltersAreRejectedWithAReason(_ filter: String) {
        #expect(throws: EmployeesError.self) { try matches(filter) }
        do {
            _ = try EmployeeFilter(parsing: filter)
        } catch {
            #expect(error.exitCode == 2)
        }
    }
}
