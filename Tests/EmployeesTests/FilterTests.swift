import Testing

@testable import employees

/// `--where` filters: Logbook's string predicates, with the app's digit separators and
/// errors that say where the problem is.
@Suite struct FilterTests {
    private let store: TemporaryRepository

    init() throws {
        store = try TemporaryRepository(employees: [
            EmployeeDraft(name: "Ann", designation: "Engineer", salary: 2_000_000)
        ])
    }

    private func matches(_ filter: String) throws -> Bool {
        try !store.repository.list(EmployeeQuery(filter: filter)).isEmpty
    }

    private func reason(_ filter: String) throws -> String? {
        do {
            _ = try store.repository.list(EmployeeQuery(filter: filter))
            return nil
        } catch {
            guard case .invalidFilter(let text, let reason) = error, text == filter else {
                Issue.record("not an invalid filter: \(error)")
                return nil
            }
            #expect(error.exitCode == 2)
            return reason
        }
    }

    @Test func comparisons() throws {
        #expect(try matches("salary > 1000000"))
        #expect(try matches("salary >= 2_000_000"))
        #expect(try !matches("salary < 2000000"))
        #expect(try matches("name == 'Ann'"))
        #expect(try matches("name = \"Ann\""))
        #expect(try matches("designation != \"Support\""))
        #expect(try matches("name BEGINSWITH[c] 'a'"), "more than the old parser had")
    }

    @Test func andBindsTighterThanOrInAnyCase() throws {
        #expect(try matches("salary > 5000000 || name == 'Ann' && salary > 1"))
        #expect(try !matches("salary > 5000000 AND name == 'Ann' or salary < 1"))
    }

    @Test func separatorsOnlyInNumbers() throws {
        #expect(try matches("name != '1_000' AND salary == 2_000_000"))
        #expect(
            try reason("salary == 2_000_000 AND name_x == 'a'")?.hasPrefix(
                "column 25: unknown field \"name_x\"") == true)
    }

    @Test(arguments: [
        (
            "age > 3",
            "column 1: unknown field \"age\"; the fields are name, designation, salary, and text values need quotes ('Ann')"
        ),
        ("name == Ann", "column 9: unknown field \"Ann\""),
        ("salary >", "column 9: the predicate ends where a value or key path was expected"),
        ("salary ~ 3", "column 8: unexpected character \"~\""),
        ("name == 'Ann", "column 9: the string starting here has no closing '"),
        ("salary > 1 salary", "column 12: expected AND, OR or the end of the predicate"),
        ("salary > 1_000_000 )", "column 20: expected AND, OR or the end of the predicate"),
        (
            "company == 'Acme'",
            "column 12: company is a relationship to Company; compare it with nil or an object"
        ),
        ("salary > 'x'", "column 10: salary holds Int64 values, not the String \"x\""),
    ])
    func malformedFiltersSayWhereAndWhy(_ filter: String, _ expected: String) throws {
        let reason = try #require(try reason(filter))
        #expect(reason.hasPrefix(expected), "\(reason)")
    }

    @Test func aFilterOnSeveralLinesIsShownOnOne() throws {
        let reason = try #require(try reason("salary >\n 1 AND x > 1"))
        #expect(reason.hasPrefix("column 17: unknown field \"x\""))
        let message = EmployeesError.invalidFilter(filter: "a\nb", reason: "r").description
        #expect(message == "cannot use filter \"a\\nb\": r")
    }
}
